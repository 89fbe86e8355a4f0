import type { Evidence, InvariantResult } from './checked-evidence';

/**
 * OPEN_TASK_SLOTS_RETURNED: each user's and each namespace's count of unfinished tasks, which
 * POST /tasks and adoption take a slot from and an outcome gives one back to, equals the tasks it
 * holds that are not finished, once the run has settled: through crashes, redeliveries and
 * failovers, every slot taken was given back exactly once (a slot kept would shut a user, or a
 * whole partner, out for good). Not checked when the evidence has no counts (none gathered).
 */
export function slotInvariants(evidence: Evidence): InvariantResult[] {
  if (evidence.slots === undefined) return [];
  const examples = evidence.slots
    .filter((s) => s.counted !== s.unfinished)
    .map((s) => `${s.kind} ${s.holder} counts ${s.counted} unfinished tasks and has ${s.unfinished}`);
  return [
    {
      invariant: 'OPEN_TASK_SLOTS_RETURNED',
      meaning: "each user's and each namespace's open-task count equals its unfinished tasks: every slot taken was given back once",
      violations: examples.length,
      examples: examples.slice(0, 5),
    },
  ];
}
