import { randomUUID } from 'node:crypto';
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
  /** This attempt's claim: only it may record the attempt's result. */
  claim_id: string;
}

/** Deliveries in flight at once, per instance; each ends by its own deadline, apart from the others. */
const maxInFlight = 10;

/**
 * Delivers pending notifications to their users' webhooks, signed per Standard Webhooks: the
 * `webhook-id` is the outcome event's id, so receivers can deduplicate a redelivery; while a rotated
 * secret is in its grace period, both the new and the old signature are sent. The destination is
 * checked when the connection is made (see postWebhook). Failures that may pass are retried with
 * backoff; when delivery ends, one NotificationSent says how the user was told.
 *
 * Deliveries run side by side, each to its own deadline: a free slot is filled as soon as one ends,
 * so a slow receiver holds one slot, never the others. Each claim of a notification has an id, and a
 * result is recorded only under the claim that made the attempt while the notification is still
 * pending: an answer that arrives after another claim, a deleted webhook or an erasure changes
 * nothing and publishes nothing.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('webhooks');
  private readonly loop: WorkerLoop;
  private readonly inFlight = new Set<Promise<void>>();

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

  /** Claims nothing more, and waits for the deliveries in flight: at most the delivery deadline. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  wake(): void {
    this.loop.wake();
  }

  /**
   * Fills the free slots and returns without waiting for the deliveries: each wakes the loop when it
   * ends. A claim that filled every slot may have left more due; one cut short had all there was.
   */
  private async round(): Promise<boolean> {
    const free = maxInFlight - this.inFlight.size;
    if (free <= 0) return false;
    const batch = await this.claim(free);
    for (const n of batch) {
      const delivery: Promise<void> = this.deliver(n)
        .catch((error) => this.logger.error(`delivery of notification ${n.id} failed: ${(error as Error).message}`))
        .finally(() => {
          this.inFlight.delete(delivery);
          this.loop.wake();
        });
      this.inFlight.add(delivery);
    }
    return batch.length === free;
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
        n.claim_id = randomUUID();
        await trx('notifications')
          .where({ id: n.id })
          .update({ delivery_attempts: n.delivery_attempts, claim_id: n.claim_id, next_delivery_at: new Date(Date.now() + this.config.deliveryTimeoutMs * 2) });
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
      // Still ours to record: pending, under this attempt's claim. A row locked here stays so until commit.
      const mine = await trx('notifications').where({ id: n.id, claim_id: n.claim_id, status: 'pending' }).forUpdate().first('id');
      if (!mine) {
        this.logger.log(`the answer to notification ${n.id}'s attempt ${n.delivery_attempts} came after it was settled elsewhere; nothing recorded`);
        return;
      }
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
