import { QuotaDecision, TaskLedger } from '../../ledger/quota.rules';

/**
 * Generation failed: give back the debit, once. `debitedBalance` is the balance of the user the debit
 * was taken from; nothing the failure event says about user or amount is used.
 */
export function onGenerationFailed(task: TaskLedger, debitedBalance: number): QuotaDecision {
  if (!task.debit) return { kind: 'nothing', because: 'the task was never debited' };
  if (task.refunded) return { kind: 'nothing', because: 'the task was already refunded' };
  if (task.settled) return { kind: 'nothing', because: 'the task’s generation succeeded' };
  return { kind: 'refund', userId: task.debit.userId, amount: task.debit.amount, balanceAfter: debitedBalance + task.debit.amount };
}
