import { startingGrants } from './allowances';

describe("a new user's starting grant", () => {
  const allowances = { defaultQuota: 10, partnerDefaults: { newUserQuota: 3, drawCap: 100 } };

  it("gives an HTTP user DEFAULT_QUOTA whatever any namespace's budget holds, and a namespace's users its allowance while its cap holds", () => {
    const budgets = new Map([['acme', { newUserQuota: 3, drawCap: 7, drawn: 0 }]]);
    const grants = startingGrants(['alice', 'acme:a', 'acme:b', 'acme:c', 'acme:d'], allowances, budgets);
    expect([...grants]).toEqual([
      ['alice', 10],
      ['acme:a', 3],
      ['acme:b', 3],
      ['acme:c', 1],
      ['acme:d', 0],
    ]);
  });

  it('counts what was drawn before, keeps namespaces apart, and gives nothing where no budget was locked', () => {
    const budgets = new Map([
      ['acme', { newUserQuota: 5, drawCap: 10, drawn: 10 }],
      ['beta', { newUserQuota: 5, drawCap: 10, drawn: 2 }],
    ]);
    expect([...startingGrants(['acme:x', 'beta:x', 'beta:y', 'gamma:x'], allowances, budgets)]).toEqual([
      ['acme:x', 0],
      ['beta:x', 5],
      ['beta:y', 3],
      ['gamma:x', 0],
    ]);
  });

  it('never gives a negative grant, even past a cap lowered below what was drawn', () => {
    const budgets = new Map([['acme', { newUserQuota: 5, drawCap: 2, drawn: 9 }]]);
    expect(startingGrants(['acme:x'], { ...allowances, defaultQuota: -1 }, budgets).get('acme:x')).toBe(0);
    expect(startingGrants(['bob'], { ...allowances, defaultQuota: -1 }, budgets).get('bob')).toBe(0);
  });
});
