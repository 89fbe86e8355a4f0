import type { Evidence, InvariantResult } from './checked-evidence';

/**
 * PARTNER_BUDGETS_HELD: no namespace's users drew more, without an admin's grant, than its cap, and
 * what its budget says was drawn is exactly the starting grants on their ledgers — through crashes,
 * redeliveries and failovers, no account was opened twice or given a grant its budget did not count
 * (a partner that invents users gets no free units). Not checked when the evidence has none.
 */
export function budgetInvariants(evidence: Evidence): InvariantResult[] {
  if (evidence.budgets === undefined) return [];
  const examples = evidence.budgets.flatMap((b) => [
    ...(b.drawn > b.cap ? [`${b.partner} drew ${b.drawn} past its cap of ${b.cap}`] : []),
    ...(b.drawn !== b.granted ? [`${b.partner}'s budget counts ${b.drawn} drawn, its users' ledgers hold ${b.granted} in starting grants`] : []),
  ]);
  return [
    {
      invariant: 'PARTNER_BUDGETS_HELD',
      meaning: "each namespace's users drew no more than its cap, and its budget counts exactly the starting grants on their ledgers",
      violations: examples.length,
      examples: examples.slice(0, 5),
    },
  ];
}
