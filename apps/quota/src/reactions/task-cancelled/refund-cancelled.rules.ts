import { QuotaDecision, TaskLedger } from '../../ledger/quota.rules';

/**
 * The tasks service cancelled the task: it is the arbiter, and it cancels only a task with no outcome,
 * so the task is never charged. A debit is given back, once (even after a success quota has seen: the
 * success lost the race there); a task not yet decided is refused, so that its request, if it ever
 * arrives, takes nothing. `balanceOf` gives the balance of the debit's user, or of the event's.
 */
export function onTaskCancelled(task: TaskLedger, userId: string, balanceOf: (userId: string) => number): QuotaDecision {
  if (task.debit) {
    if (task.refunded) return { kind: 'nothing', because: 'the task was already refunded' };
    return { kind: 'refund', userId: task.debit.userId, amount: task.debit.amount, balanceAfter: balanceOf(task.debit.userId) + task.debit.amount };
  }
  if (task.rejected) return { kind: 'nothing', because: 'the task was refused, never debited' };
  return { kind: 'reject', userId, reason: 'CANCELLED', balance: balanceOf(userId) };
}
