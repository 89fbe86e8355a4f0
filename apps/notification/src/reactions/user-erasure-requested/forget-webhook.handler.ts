import { causedBy, DomainEvent, EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';

/**
 * An erasure: the user's webhook (the address they gave, and its sealed secret) is deleted; the
 * notifications stay (outcomes and the platform's own words, never the user's content). A delivery
 * still pending to that webhook ends as one that failed for good does: the user was told in their
 * inbox (NotificationSent, channel inbox), so every outcome is still notified once.
 */
export async function forgetWebhook(event: EventOf<'UserErasureRequested'>, { trx, publish }: HandlerContext): Promise<void> {
  const erased = await trx('webhooks').where({ user_id: event.userId }).delete();
  const stranded: Array<{ outcome: string; payload: DomainEvent }> = await trx('notifications')
    .where({ user_id: event.userId, status: 'pending' })
    .update({ status: 'failed', next_delivery_at: null, last_error: 'the user’s webhook was erased with their data' })
    .returning(['outcome', 'payload']);
  for (const n of stranded) await publish(causedBy(n.payload, 'NotificationSent', { outcome: n.outcome, channel: 'inbox' }));
  await publish(causedBy(event, 'UserDataErased', { service: 'notification', erased }));
}
