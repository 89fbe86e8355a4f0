import { quotaRefunds } from '@app/metrics';
import { causedBy, DomainEvent } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import type { QuotaDecision } from './quota.rules';

/** Writes what quota.rules decided: its ledger row and, except for a settlement, its event. */
export async function recordDecision({ trx, publish, afterCommit }: HandlerContext, cause: DomainEvent, decision: QuotaDecision): Promise<void> {
  if (decision.kind === 'nothing') return;
  const row = { user_id: decision.userId, task_id: cause.taskId, event_id: cause.eventId };
  switch (decision.kind) {
    case 'debit':
      await trx('quota_ledger').insert({ ...row, kind: 'debit', amount: decision.amount });
      return publish(causedBy(cause, 'QuotaDebited', { amount: decision.amount, balanceAfter: decision.balanceAfter }));
    case 'reject':
      await trx('quota_ledger').insert({ ...row, kind: 'rejection', amount: 0 });
      return publish(causedBy(cause, 'QuotaRejected', { reason: decision.reason, balance: decision.balance }));
    case 'refund':
      await trx('quota_ledger').insert({ ...row, kind: 'refund', amount: decision.amount });
      afterCommit(() => quotaRefunds.inc(decision.amount));
      // To the user the debit was taken from, whatever the failure event names.
      return publish({
        ...causedBy(cause, 'QuotaRefunded', { amount: decision.amount, balanceAfter: decision.balanceAfter }),
        userId: decision.userId,
      });
    case 'settle':
      await trx('quota_ledger').insert({ ...row, kind: 'settled', amount: 0 });
  }
}
