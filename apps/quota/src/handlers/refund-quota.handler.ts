import { causedBy, EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { ledgerEntry, lockAccount } from '../ledger/quota-account';

/**
 * Compensation: a failed generation gives back its task's debit, once, and only if there was one.
 */
export async function refundQuota(event: EventOf<'GenerationFailed'>, { trx, publish }: HandlerContext, defaultQuota: number): Promise<void> {
  const account = await lockAccount(trx, event.userId, defaultQuota);
  const debit = await ledgerEntry(trx, event.taskId, 'debit');
  if (!debit || (await ledgerEntry(trx, event.taskId, 'refund'))) return;
  await trx('quota_ledger').insert({ user_id: event.userId, kind: 'refund', task_id: event.taskId, amount: debit.amount, event_id: event.eventId });
  await publish(causedBy(event, 'QuotaRefunded', { amount: debit.amount, balanceAfter: account.balance + debit.amount }, 'quota'));
}
