import { causedBy, EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { ledgerEntry, lockAccount } from '../ledger/quota-account';

/**
 * A task that timed out before quota decided on it is refused (QuotaRejected{TIMED_OUT}), so that its
 * request, if it ever arrives, takes nothing. A task already decided is left as it is: a refusal was
 * published, and a debit is generation's to fail, which quota then refunds.
 */
export async function closeTimedOut(event: EventOf<'TaskTimedOut'>, { trx, publish }: HandlerContext, defaultQuota: number): Promise<void> {
  const account = await lockAccount(trx, event.userId, defaultQuota);
  if ((await ledgerEntry(trx, event.taskId, 'debit')) || (await ledgerEntry(trx, event.taskId, 'rejection'))) return;
  await trx('quota_ledger').insert({ user_id: event.userId, kind: 'rejection', task_id: event.taskId, amount: 0, event_id: event.eventId });
  await publish(causedBy(event, 'QuotaRejected', { reason: 'TIMED_OUT', balance: account.balance }, 'quota'));
}
