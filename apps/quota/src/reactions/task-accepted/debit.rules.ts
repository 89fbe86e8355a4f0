import { alreadyDecided, QuotaDecision, TaskLedger } from '../../ledger/quota.rules';

/** The platform accepted the task: debit one unit when the balance allows, refuse it otherwise. */
export function onTaskAccepted(task: TaskLedger, userId: string, balance: number): QuotaDecision {
  if (alreadyDecided(task)) return { kind: 'nothing', because: 'the task was already debited or refused' };
  if (balance < 1) return { kind: 'reject', userId, reason: 'INSUFFICIENT_QUOTA', balance };
  return { kind: 'debit', userId, amount: 1, balanceAfter: balance - 1 };
}
