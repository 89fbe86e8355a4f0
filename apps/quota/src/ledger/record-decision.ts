import { quotaRefunds } from '@app/metrics';
import { inOneStatement } from '@app/database';
import { causedBy, DomainEvent } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { LedgerKind } from '@app/quota-ledger';
import { balancesStored } from './quota-account';
import type { QuotaBook, QuotaDecision } from './quota.rules';

/** The ledger row each of quota.rules' decisions writes. */
const ledgerKind: Record<Exclude<QuotaDecision['kind'], 'nothing'>, LedgerKind> = { debit: 'debit', reject: 'rejection', refund: 'refund', settle: 'settled' };

/**
 * Writes what quota.rules decided for a batch by one statement: its ledger rows, the balances they
 * moved and their events (none for a settlement).
 */
export async function recordDecisions(
  { trx, outboxWriteOf, afterCommit }: BatchContext,
  book: QuotaBook,
  decided: Array<{ event: DomainEvent; decision: QuotaDecision }>,
): Promise<void> {
  const taken = decided.filter(({ decision }) => decision.kind !== 'nothing') as Array<{
    event: DomainEvent;
    decision: Exclude<QuotaDecision, { kind: 'nothing' }>;
  }>;
  if (taken.length === 0) return;
  const ledger = trx('quota_ledger').insert(
    taken.map(({ event, decision }) => ({
      user_id: decision.userId,
      task_id: event.taskId,
      event_id: event.eventId,
      kind: ledgerKind[decision.kind],
      amount: decision.kind === 'debit' || decision.kind === 'refund' ? decision.amount : 0,
    })),
  );
  const moved = new Set(taken.filter(({ decision }) => decision.kind === 'debit' || decision.kind === 'refund').map(({ decision }) => decision.userId));
  const balances = balancesStored(trx, new Map([...moved].map((userId) => [userId, book.balances.get(userId)!])));
  const events = await outboxWriteOf(taken.flatMap(({ event, decision }) => eventsOf(event, decision)));
  await inOneStatement(trx, { ledger, balances, events: events?.insert });
  const refunded = taken.reduce((sum, { decision }) => sum + (decision.kind === 'refund' ? decision.amount : 0), 0);
  if (refunded > 0) afterCommit(() => quotaRefunds.inc(refunded));
}

function eventsOf(cause: DomainEvent, decision: Exclude<QuotaDecision, { kind: 'nothing' }>): DomainEvent[] {
  switch (decision.kind) {
    case 'debit':
      return [causedBy(cause, 'QuotaDebited', { amount: decision.amount, balanceAfter: decision.balanceAfter })];
    case 'reject':
      return [causedBy(cause, 'QuotaRejected', { reason: decision.reason, balance: decision.balance })];
    case 'refund':
      // To the user the debit was taken from, whatever the failure event names.
      return [{ ...causedBy(cause, 'QuotaRefunded', { amount: decision.amount, balanceAfter: decision.balanceAfter }), userId: decision.userId }];
    case 'settle':
      return [];
  }
}
