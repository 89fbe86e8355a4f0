import { causedBy, EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { ledgerEntry, lockAccount } from '../ledger/quota-account';

/**
 * One quota unit per task: debited when the balance allows (QuotaDebited), refused otherwise
 * (QuotaRejected, a business refusal and so an event, never retried). The decision is kept in the
 * ledger, so a second request for the same task gets no second decision.
 */
export async function debitQuota(event: EventOf<'TaskAccepted'>, { trx, publish }: HandlerContext, defaultQuota: number): Promise<void> {
  const account = await lockAccount(trx, event.userId, defaultQuota);
  if ((await ledgerEntry(trx, event.taskId, 'debit')) || (await ledgerEntry(trx, event.taskId, 'rejection'))) return;
  if (account.balance < 1) {
    await trx('quota_ledger').insert({ user_id: event.userId, kind: 'rejection', task_id: event.taskId, amount: 0, event_id: event.eventId });
    await publish(causedBy(event, 'QuotaRejected', { reason: 'INSUFFICIENT_QUOTA', balance: account.balance }, 'quota'));
    return;
  }
  await trx('quota_ledger').insert({ user_id: event.userId, kind: 'debit', task_id: event.taskId, amount: 1, event_id: event.eventId });
  await publish(causedBy(event, 'QuotaDebited', { amount: 1, balanceAfter: account.balance - 1 }, 'quota'));
}
