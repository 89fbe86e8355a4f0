import { afterCommit, KNEX } from '@app/database';
import { retries, webhookDeliveries } from '@app/metrics';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Knex } from 'knex';
import { Webhook } from 'standardwebhooks';
import { causedBy, EventOf } from '@app/events';
import { outbox } from '@app/messaging';
import { exponentialDelay, WorkerLoop } from '@app/timing';
import { inSpan, traceparentFor } from '@app/tracing';
import { NOTIFICATION_CONFIG, NotificationConfig } from '../notification.config';
import { SecretBox } from '../webhooks/secret-box';
import { postWebhook } from '../webhooks/webhook-client';
import { UrlPolicy } from '../webhooks/webhook-url';
import { WEBHOOK_POLICY } from '../webhooks/webhook-policy.provider';
import { classifyDelivery, DeliveryOutcome } from './delivery-outcome.rules';

interface Pending {
  id: string;
  user_id: string;
  outcome: 'TaskCompleted' | 'TaskFailed';
  event_id: string;
  message: string;
  payload: EventOf<'TaskCompleted'> | EventOf<'TaskFailed'>;
  delivery_attempts: number;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_until: Date | null;
  traceparent: string | null;
}

/** Notifications claimed, and delivered concurrently, per round. */
const claimLimit = 10;

/**
 * Delivers pending notifications to their users' webhooks, signed per Standard Webhooks: the
 * `webhook-id` is the outcome event's id, so receivers can deduplicate a redelivery; while a rotated
 * secret is in its grace period, both the new and the old signature are sent. The destination is
 * checked when the connection is made (see postWebhook). Failures that may pass are retried with
 * backoff; when delivery ends, one NotificationSent says how the user was told.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('webhooks');
  private readonly loop: WorkerLoop;

  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(NOTIFICATION_CONFIG) private readonly config: NotificationConfig,
    @Inject(WEBHOOK_POLICY) private readonly policy: UrlPolicy,
    private readonly box: SecretBox,
  ) {
    this.loop = new WorkerLoop(() => this.round(), { name: 'webhooks', logger: new Logger('webhooks'), pollIntervalMs: config.pollIntervalMs });
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

  /** A full batch may have left more due; one cut short had all there was (a new one wakes the loop). */
  private async round(): Promise<boolean> {
    const batch = await this.claim(claimLimit);
    await Promise.all(batch.map((n) => this.deliver(n)));
    return batch.length === claimLimit;
  }

  /** Due notifications, pushed out by the delivery timeout so that no other round takes them meanwhile. */
  private claim(limit: number): Promise<Pending[]> {
    return this.knex.transaction(async (trx) => {
      const due: Pending[] = await trx('notifications as n')
        .join('webhooks as w', 'w.user_id', 'n.user_id')
        .where('n.status', 'pending')
        .where('n.next_delivery_at', '<=', trx.fn.now())
        .select('n.id', 'n.user_id', 'n.outcome', 'n.event_id', 'n.message', 'n.payload', 'n.delivery_attempts', 'n.traceparent', 'w.url')
        .select('w.secret_sealed', 'w.previous_secret_sealed', 'w.previous_secret_until')
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

  /** One webhook attempt is one span of the task's trace, under the context the notification was created in. */
  private deliver(n: Pending): Promise<void> {
    const facts = { taskId: n.payload.taskId, eventId: n.event_id, eventType: n.outcome, attempt: n.delivery_attempts };
    return inSpan('webhook delivery', { parent: n.traceparent ?? traceparentFor(n.payload.correlationId), facts }, () => this.attemptDelivery(n));
  }

  private async attemptDelivery(n: Pending): Promise<void> {
    const body = JSON.stringify({
      type: n.outcome === 'TaskCompleted' ? 'task.completed' : 'task.failed',
      timestamp: new Date().toISOString(),
      data: { ...n.payload, message: n.message },
    });
    const timestamp = new Date();
    const secrets = [this.box.open(n.secret_sealed)];
    if (n.previous_secret_sealed && n.previous_secret_until && new Date(n.previous_secret_until) > timestamp)
      secrets.push(this.box.open(n.previous_secret_sealed));
    const headers = {
      'content-type': 'application/json',
      'webhook-id': n.event_id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(n.event_id, timestamp, body)).join(' '),
    };
    const outcome: DeliveryOutcome = classifyDelivery(await postWebhook(n.url, headers, body, this.config.deliveryTimeoutMs, this.policy));
    await this.record(n, outcome).catch((error) => this.logger.error(`recording delivery ${n.id} failed: ${(error as Error).message}`));
  }

  private async record(n: Pending, outcome: DeliveryOutcome): Promise<void> {
    await this.knex.transaction(async (trx) => {
      const counted = (result: 'delivered' | 'retrying' | 'failed') => afterCommit(trx, () => webhookDeliveries.inc({ result }));
      if (outcome.delivered) {
        counted('delivered');
        await trx('notifications').where({ id: n.id }).update({ status: 'delivered', delivered_at: trx.fn.now(), next_delivery_at: null, last_error: null });
        await outbox.add(trx, causedBy(n.payload, 'NotificationSent', { outcome: n.outcome, channel: 'webhook' }, 'notification'));
        return;
      }
      if (outcome.retriable && n.delivery_attempts < this.config.maxDeliveryAttempts) {
        counted('retrying');
        afterCommit(trx, () => retries.inc({ kind: 'webhook' }));
        const delay = exponentialDelay(n.delivery_attempts, { initialMs: this.config.retryInitialMs, maxMs: this.config.retryMaxMs, jitter: 0.2 });
        await trx('notifications')
          .where({ id: n.id })
          .update({ next_delivery_at: new Date(Date.now() + delay), last_error: outcome.error });
        return;
      }
      // The webhook gave up; the notification stays readable in the user's inbox.
      counted('failed');
      this.logger.warn(`webhook delivery of notification ${n.id} failed for good after ${n.delivery_attempts} attempt(s): ${outcome.error}`);
      await trx('notifications').where({ id: n.id }).update({ status: 'failed', next_delivery_at: null, last_error: outcome.error });
      await outbox.add(trx, causedBy(n.payload, 'NotificationSent', { outcome: n.outcome, channel: 'inbox' }, 'notification'));
    });
  }
}
