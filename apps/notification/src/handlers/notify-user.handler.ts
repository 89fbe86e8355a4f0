import { causedBy, EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';

type Outcome = EventOf<'TaskCompleted'> | EventOf<'TaskFailed'>;

/** What the user reads: the outcome and, for a failure, the reason and whether the quota came back. */
export function messageFor(event: Outcome): string {
  if (event.eventType === 'TaskCompleted') return `Your report is ready: ${event.reportRef}`;
  if (event.errorCode === 'CANCELLED') return `Your report was ${event.reason}. You are not charged for it.`;
  const refund = event.compensated ? ' The quota it used has been refunded.' : '';
  return `Your report could not be produced: ${event.reason}.${refund}`;
}

/**
 * One notification per (task, outcome): a user with a webhook gets it delivered (by the delivery
 * worker, woken once this commits); otherwise it waits in their inbox and counts as sent at once.
 */
export async function notifyUsers(events: Outcome[], { trx, publish, afterCommit, traceparentOf }: BatchContext, wakeDeliveries: () => void): Promise<void> {
  const withWebhook = new Set<string>(
    await trx('webhooks')
      .whereIn('user_id', [...new Set(events.map((event) => event.userId))])
      .pluck('user_id'),
  );
  const byWebhook = (event: Outcome) => withWebhook.has(event.userId);
  const inserted: Array<{ event_id: string }> = await trx('notifications')
    .insert(
      events.map((event) => ({
        task_id: event.taskId,
        user_id: event.userId,
        outcome: event.eventType,
        event_id: event.eventId,
        correlation_id: event.correlationId,
        message: messageFor(event),
        payload: JSON.stringify(event),
        channel: byWebhook(event) ? 'webhook' : 'inbox',
        status: byWebhook(event) ? 'pending' : 'delivered',
        next_delivery_at: byWebhook(event) ? trx.fn.now() : null,
        delivered_at: byWebhook(event) ? null : trx.fn.now(),
        traceparent: traceparentOf(event) ?? null,
      })),
    )
    .onConflict(['task_id', 'outcome'])
    .ignore()
    .returning('event_id');
  const notified = new Set(inserted.map((row) => row.event_id));
  const fresh = events.filter((event) => notified.has(event.eventId.toLowerCase()));
  if (fresh.some(byWebhook)) afterCommit(wakeDeliveries);
  await publish(fresh.filter((event) => !byWebhook(event)).map((event) => causedBy(event, 'NotificationSent', { outcome: event.eventType, channel: 'inbox' })));
}
