import type { FaultEntry } from './history';
import type { Evidence, InvariantResult } from './checked-evidence';
import { slotInvariants } from './slot-invariants';
import { budgetInvariants } from './budget-invariants';

/** A promotion this long after its fault ended is still that fault's: Patroni may finish it as the fault heals. */
const promotionGraceMs = 15_000;
const askedFor = new Set(['failover-postgres', 'switchover-postgres']);

/** What the databases show once the run has settled: the promotions below, the slots (slot-invariants) and the budgets (budget-invariants). */
export function databaseInvariants(evidence: Evidence): InvariantResult[] {
  return [...noUnaskedFailover(evidence), ...slotInvariants(evidence), ...budgetInvariants(evidence)];
}

/**
 * A replicated database changes primary only when the campaign asked it to: a promotion outside
 * every failover and switchover means Patroni or etcd, starved of CPU beside the brokers, let a
 * leader's lease lapse on its own (their timeouts are too tight for the machine).
 */
function noUnaskedFailover(evidence: Evidence): InvariantResult[] {
  if (evidence.promotions === undefined) return [];
  const faults = evidence.history.filter((h): h is FaultEntry => h.kind === 'fault' && askedFor.has(h.fault));
  const windows = faults
    .filter((f) => f.phase === 'start')
    .map((start) => ({ start: start.at, end: faults.find((f) => f.phase === 'end' && f.id === start.id)?.at ?? Number.POSITIVE_INFINITY }));
  const unasked = evidence.promotions.filter((p) => {
    const at = Date.parse(p.at);
    return !windows.some((w) => at >= w.start && at <= w.end + promotionGraceMs);
  });
  const examples = unasked.map((p) => `timeline ${p.timeline} began at ${p.at} under ${p.leader}, during no failover or switchover`);
  return [
    {
      invariant: 'NO_UNASKED_FAILOVER',
      meaning: 'the database changed primary only when a failover or switchover was made',
      violations: examples.length,
      examples: examples.slice(0, 5),
    },
  ];
}
