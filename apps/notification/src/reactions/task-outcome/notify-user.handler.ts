import { causedBy } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { decideNotification, Outcome } from './notification.rules';

/**
 * One notification per (task, outcome): load which users have a webhook, decide each outcome's
 * message and channel (notification.rules), save them — a webhook one pending for the delivery worker
 * (woken once this commits), an inbox one delivered at once with its NotificationSent. A redelivered
 * outcome finds its row and does nothing.
 */
export async function notifyUsers(events: Outcome[], { trx, publish, afterCommit, traceparentOf }: BatchContext, wakeDeliveries: () => void): Promise<void> {
  const withWebhook = new Set<string>(
    await trx('webhooks')
      .whereIn('user_id', [...new Set(events.map((event) => event.userId))])
      .pluck('user_id'),
  );
  const decided = events.map((event) => ({ event, ...decideNotification(event, withWebhook.has(event.userId)) }));
  const inserted: Array<{ event_id: string }> = await trx('notifications')
    .insert(
      decided.map(({ event, message, channel }) => ({
        task_id: event.taskId,
        user_id: event.userId,
        outcome: event.eventType,
        event_id: event.eventId,
        correlation_id: event.correlationId,
        message,
        payload: JSON.stringify(event),
        channel,
        status: channel === 'webhook' ? 'pending' : 'delivered',
        next_delivery_at: channel === 'webhook' ? trx.fn.now() : null,
        delivered_at: channel === 'webhook' ? null : trx.fn.now(),
        traceparent: traceparentOf(event) ?? null,
      })),
    )
    .onConflict(['task_id', 'outcome'])
    .ignore()
    .returning('event_id');
  const notified = new Set(inserted.map((row) => row.event_id));
  const fresh = decided.filter(({ event }) => notified.has(event.eventId.toLowerCase()));
  if (fresh.some(({ channel }) => channel === 'webhook')) afterCommit(wakeDeliveries);
  await publish(
    fresh.filter(({ channel }) => channel === 'inbox').map(({ event }) => causedBy(event, 'NotificationSent', { outcome: event.eventType, channel: 'inbox' })),
  );
}
