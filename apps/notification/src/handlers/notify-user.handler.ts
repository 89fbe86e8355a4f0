import { causedBy, EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { traceparentOf } from '@app/tracing';

type Outcome = EventOf<'TaskCompleted'> | EventOf<'TaskFailed'>;

/** What the user reads: the outcome and, for a failure, the reason and whether the quota came back. */
export function messageFor(event: Outcome): string {
  if (event.eventType === 'TaskCompleted') return `Your report is ready: ${event.reportRef}`;
  const refund = event.compensated ? ' The quota it used has been refunded.' : '';
  return `Your report could not be produced: ${event.reason}.${refund}`;
}

/**
 * One notification per (task, outcome): a user with a webhook gets it delivered (by the delivery
 * worker, woken once this commits); otherwise it waits in their inbox and counts as sent at once.
 */
export async function notifyUser(event: Outcome, { trx, publish, afterCommit }: HandlerContext, wakeDeliveries: () => void): Promise<void> {
  const webhook = await trx('webhooks').where({ user_id: event.userId }).first();
  const inserted = await trx('notifications')
    .insert({
      task_id: event.taskId,
      user_id: event.userId,
      outcome: event.eventType,
      event_id: event.eventId,
      correlation_id: event.correlationId,
      message: messageFor(event),
      payload: JSON.stringify(event),
      channel: webhook ? 'webhook' : 'inbox',
      status: webhook ? 'pending' : 'delivered',
      next_delivery_at: webhook ? trx.fn.now() : null,
      delivered_at: webhook ? null : trx.fn.now(),
      traceparent: traceparentOf() ?? null,
    })
    .onConflict(['task_id', 'outcome'])
    .ignore()
    .returning('id');
  if (inserted.length === 0) return;
  if (webhook) afterCommit(wakeDeliveries);
  else await publish(causedBy(event, 'NotificationSent', { outcome: event.eventType, channel: 'inbox' }));
}
