import type { Evidence } from './checked-evidence';
import { budgetInvariants } from './budget-invariants';

describe('the campaign checker: partner budgets held', () => {
  const evidence = (budgets: Evidence['budgets']): Evidence => ({
    history: [],
    events: [],
    undecodable: 0,
    deadLetters: [],
    outbox: [],
    acknowledged: [],
    balances: [],
    granted: 0,
    budgets,
  });

  it('counts nothing when each budget is within its cap and equals its starting grants', () => {
    const [result] = budgetInvariants(evidence([{ partner: 'acme', drawn: 40, cap: 40, granted: 40 }]));
    expect(result).toMatchObject({ invariant: 'PARTNER_BUDGETS_HELD', violations: 0 });
  });

  it('counts a draw past the cap and a grant the budget did not count, naming whose', () => {
    const [result] = budgetInvariants(
      evidence([
        { partner: 'acme', drawn: 50, cap: 40, granted: 50 },
        { partner: 'globex', drawn: 10, cap: 40, granted: 20 },
      ]),
    );
    expect(result.violations).toBe(2);
    expect(result.examples).toEqual(['acme drew 50 past its cap of 40', "globex's budget counts 10 drawn, its users' ledgers hold 20 in starting grants"]);
  });

  it('checks nothing without budgets in the evidence', () => {
    expect(budgetInvariants(evidence(undefined))).toEqual([]);
  });
});
