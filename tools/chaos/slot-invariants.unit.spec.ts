import type { Evidence } from './checked-evidence';
import { slotInvariants } from './slot-invariants';

describe('the campaign checker: every open-task slot given back', () => {
  const evidence = (slots: Evidence['slots']): Evidence => ({
    history: [],
    events: [],
    undecodable: 0,
    deadLetters: [],
    outbox: [],
    acknowledged: [],
    balances: [],
    granted: 0,
    slots,
  });

  it('counts nothing when every count equals the unfinished tasks', () => {
    const [result] = slotInvariants(
      evidence([
        { kind: 'user', holder: 'ann', counted: 0, unfinished: 0 },
        { kind: 'namespace', holder: 'acme', counted: 2, unfinished: 2 },
      ]),
    );
    expect(result).toMatchObject({ invariant: 'OPEN_TASK_SLOTS_RETURNED', violations: 0 });
  });

  it('counts a slot kept and a slot given back twice, naming whose', () => {
    const [result] = slotInvariants(
      evidence([
        { kind: 'user', holder: 'ann', counted: 1, unfinished: 0 },
        { kind: 'namespace', holder: 'acme', counted: 0, unfinished: 1 },
        { kind: 'user', holder: 'bob', counted: 3, unfinished: 3 },
      ]),
    );
    expect(result.violations).toBe(2);
    expect(result.examples).toEqual(['user ann counts 1 unfinished tasks and has 0', 'namespace acme counts 0 unfinished tasks and has 1']);
  });

  it('checks nothing when no counts were gathered', () => {
    expect(slotInvariants(evidence(undefined))).toEqual([]);
  });
});
