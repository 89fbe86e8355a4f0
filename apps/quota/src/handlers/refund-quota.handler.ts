import type { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { loadTaskLedger, lockAccount } from '../ledger/quota-account';
import { onGenerationFailed } from '../ledger/quota.rules';
import { recordDecision } from '../ledger/record-decision';

/**
 * Compensation: a failed generation gives back its task's debit, once, and only if there was one.
 * Nothing in the failure event is trusted beyond its taskId. The debited user's account is locked
 * before the task's rows are read again, so two failures of one task refund it once.
 */
export async function refundQuota(event: EventOf<'GenerationFailed'>, context: HandlerContext, defaultQuota: number): Promise<void> {
  const debit = (await loadTaskLedger(context.trx, event.taskId)).debit;
  const balance = debit ? (await lockAccount(context.trx, debit.userId, defaultQuota)).balance : 0;
  await recordDecision(context, event, onGenerationFailed(await loadTaskLedger(context.trx, event.taskId), balance));
}
