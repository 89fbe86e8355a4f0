import { QuotaDecision, TaskLedger } from '../../ledger/quota.rules';

/** Generation succeeded: the debit stands for good, whatever failure may be claimed later. */
export function onGenerationSucceeded(task: TaskLedger): QuotaDecision {
  if (!task.debit) return { kind: 'nothing', because: 'the task was never debited' };
  if (task.settled) return { kind: 'nothing', because: 'the task was already settled' };
  return { kind: 'settle', userId: task.debit.userId };
}
