import { causedBy, EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { ledgerEntry, lockAccount } from '../ledger/quota-account';

/**
 * Compensation: a failed generation gives back its task's debit, once, and only if there was one.
 * Nothing in the failure event is trusted beyond its taskId: the refund goes to the user and amount
 * the debit recorded, and a task whose generation quota saw succeed is never refunded.
 */
export async function refundQuota(event: EventOf<'GenerationFailed'>, { trx, publish }: HandlerContext, defaultQuota: number): Promise<void> {
  const debit = await ledgerEntry(trx, event.taskId, 'debit');
  if (!debit) return;
  const account = await lockAccount(trx, debit.user_id, defaultQuota);
  if ((await ledgerEntry(trx, event.taskId, 'refund')) || (await ledgerEntry(trx, event.taskId, 'settled'))) return;
  await trx('quota_ledger').insert({ user_id: debit.user_id, kind: 'refund', task_id: event.taskId, amount: debit.amount, event_id: event.eventId });
  const refund = { amount: debit.amount, balanceAfter: account.balance + debit.amount };
  await publish({ ...causedBy(event, 'QuotaRefunded', refund, 'quota'), userId: debit.user_id });
}

/** The task's generation succeeded: its debit stands for good, whatever failure may be claimed later. */
export async function settleTask(event: EventOf<'GenerationSucceeded'>, { trx }: HandlerContext): Promise<void> {
  const debit = await ledgerEntry(trx, event.taskId, 'debit');
  if (!debit) return;
  await lockAccount(trx, debit.user_id, 0);
  if (await ledgerEntry(trx, event.taskId, 'settled')) return;
  await trx('quota_ledger').insert({ user_id: debit.user_id, kind: 'settled', task_id: event.taskId, amount: 0, event_id: event.eventId });
}
