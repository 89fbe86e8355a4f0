import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Knex } from 'knex';
import { Webhook } from 'standardwebhooks';
import { KNEX } from '@app/database';
import { causedBy, EventOf } from '@app/events';
import { addToOutbox, exponentialDelay, WorkerLoop } from '@app/messaging';
import { NOTIFICATION_CONFIG, NotificationConfig } from '../notification.config';
import { classifyDelivery, DeliveryOutcome } from './delivery-outcome';

interface Pending {
  id: string;
  user_id: string;
  outcome: 'TaskCompleted' | 'TaskFailed';
  event_id: string;
  message: string;
  payload: EventOf<'TaskCompleted'> | EventOf<'TaskFailed'>;
  delivery_attempts: number;
  url: string;
  secret: string;
}

/**
 * Delivers pending notifications to their users' webhooks, signed per Standard Webhooks: the
 * `webhook-id` is the outcome event's id, so receivers can deduplicate a redelivery. Failures that
 * may pass are retried with backoff; when delivery ends, one NotificationSent says how the user was told.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('webhooks');
  private readonly loop: WorkerLoop;

  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(NOTIFICATION_CONFIG) private readonly config: NotificationConfig,
  ) {
    this.loop = new WorkerLoop(() => this.round(), { name: 'webhooks', pollIntervalMs: config.pollIntervalMs });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  wake(): void {
    this.loop.wake();
  }

  private async round(): Promise<boolean> {
    const batch = await this.claim(10);
    await Promise.all(batch.map((n) => this.deliver(n)));
    return batch.length > 0;
  }

  /** Due notifications, pushed out by the delivery timeout so that no other round takes them meanwhile. */
  private claim(limit: number): Promise<Pending[]> {
    return this.knex.transaction(async (trx) => {
      const due: Pending[] = await trx('notifications as n')
        .join('webhooks as w', 'w.user_id', 'n.user_id')
        .where('n.status', 'pending')
        .where('n.next_delivery_at', '<=', trx.fn.now())
        .select('n.id', 'n.user_id', 'n.outcome', 'n.event_id', 'n.message', 'n.payload', 'n.delivery_attempts', 'w.url', 'w.secret')
        .orderBy('n.next_delivery_at')
        .limit(limit)
        .forUpdate('n')
        .skipLocked();
      for (const n of due) {
        n.delivery_attempts += 1;
        await trx('notifications')
          .where({ id: n.id })
          .update({ delivery_attempts: n.delivery_attempts, next_delivery_at: new Date(Date.now() + this.config.deliveryTimeoutMs * 2) });
      }
      return due;
    });
  }

  private async deliver(n: Pending): Promise<void> {
    const body = JSON.stringify({
      type: n.outcome === 'TaskCompleted' ? 'task.completed' : 'task.failed',
      timestamp: new Date().toISOString(),
      data: { ...n.payload, message: n.message },
    });
    const timestamp = new Date();
    let outcome: DeliveryOutcome;
    try {
      const response = await fetch(n.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': n.event_id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': new Webhook(n.secret).sign(n.event_id, timestamp, body),
        },
        body,
        signal: AbortSignal.timeout(this.config.deliveryTimeoutMs),
      });
      outcome = classifyDelivery({ status: response.status });
    } catch (error) {
      outcome = classifyDelivery({ error });
    }
    await this.record(n, outcome).catch((error) => this.logger.error(`recording delivery ${n.id} failed: ${(error as Error).message}`));
  }

  private async record(n: Pending, outcome: DeliveryOutcome): Promise<void> {
    await this.knex.transaction(async (trx) => {
      if (outcome.delivered) {
        await trx('notifications').where({ id: n.id }).update({ status: 'delivered', delivered_at: trx.fn.now(), next_delivery_at: null, last_error: null });
        await addToOutbox(trx, causedBy(n.payload, 'NotificationSent', { outcome: n.outcome, channel: 'webhook' }, 'notification'));
        return;
      }
      if (outcome.retriable && n.delivery_attempts < this.config.maxDeliveryAttempts) {
        const delay = exponentialDelay(n.delivery_attempts, { initialMs: this.config.retryInitialMs, maxMs: this.config.retryMaxMs, jitter: 0.2 });
        await trx('notifications').where({ id: n.id }).update({ next_delivery_at: new Date(Date.now() + delay), last_error: outcome.error });
        return;
      }
      // The webhook gave up; the notification stays readable in the user's inbox.
      this.logger.warn(`webhook delivery of notification ${n.id} failed for good after ${n.delivery_attempts} attempt(s): ${outcome.error}`);
      await trx('notifications').where({ id: n.id }).update({ status: 'failed', next_delivery_at: null, last_error: outcome.error });
      await addToOutbox(trx, causedBy(n.payload, 'NotificationSent', { outcome: n.outcome, channel: 'inbox' }, 'notification'));
    });
  }
}
