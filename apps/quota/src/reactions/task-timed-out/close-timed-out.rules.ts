import { alreadyDecided, QuotaDecision, TaskLedger } from '../../ledger/quota.rules';

/**
 * The task timed out: one not yet decided is refused, so that its request, if it ever arrives, takes
 * nothing. A debited one is generation's to fail, which then refunds it.
 */
export function onTaskTimedOut(task: TaskLedger, userId: string, balance: number): QuotaDecision {
  if (alreadyDecided(task)) return { kind: 'nothing', because: 'the task was already debited or refused' };
  return { kind: 'reject', userId, reason: 'TIMED_OUT', balance };
}
