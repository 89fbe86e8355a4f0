import { eventOf, ReactionWorld } from '@test/reaction-world';
import { grantQuota } from '../http/grant-quota';
import { quotaMigrations } from '../migrations';
import { loadQuotaConfig } from '../quota.config';
import { QuotaHandlers } from '../quota.handlers';
import { budgetOf, setBudget } from './partner-budgets';

/** A partner names its users: each one it invents draws on its namespace's budget, never on quota nobody granted. */
describe("quota: a namespace's budget for the users it names", () => {
  const world = new ReactionWorld('quota', quotaMigrations);
  const config = loadQuotaConfig({ DEFAULT_QUOTA: '4', PARTNER_NEW_USER_QUOTA: '2', PARTNER_DRAW_CAP: '5' });
  const handlers = new QuotaHandlers(config).handlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const accepted = (userId: string) => eventOf('TaskAccepted', { idempotencyKey: null, reportType: 'summary', input: '{}' }, { userId });
  const ledgerOf = (userId: string) => world.db('quota_ledger').where({ user_id: userId }).orderBy('id').select('kind', 'amount');

  it("gives a partner's invented users its allowance until its cap, then nothing, while an HTTP user and another namespace are untouched", async () => {
    // When one batch holds the first tasks of five invented acme users, an HTTP user's and a beta user's
    const invented = ['acme:u1', 'acme:u2', 'acme:u3', 'acme:u4', 'acme:u5'];
    const published = await world.react(handlers, ...[...invented, 'ann', 'beta:u1'].map(accepted));
    // Then acme's cap of 5 was drawn as 2 + 2 + 1: those three were debited, the last two refused
    expect(published.map((e) => [e.userId, e.eventType])).toEqual([
      ['acme:u1', 'QuotaDebited'],
      ['acme:u2', 'QuotaDebited'],
      ['acme:u3', 'QuotaDebited'],
      ['acme:u4', 'QuotaRejected'],
      ['acme:u5', 'QuotaRejected'],
      ['ann', 'QuotaDebited'],
      ['beta:u1', 'QuotaDebited'],
    ]);
    expect(await ledgerOf('acme:u3')).toEqual([
      { kind: 'grant', amount: 1 },
      { kind: 'debit', amount: 1 },
    ]);
    expect(await ledgerOf('acme:u5')).toEqual([{ kind: 'rejection', amount: 0 }]);
    expect(await budgetOf(world.db, 'acme', config.partnerDefaults)).toEqual({ newUserQuota: 2, drawCap: 5, drawn: 5 });
    // And the HTTP user started with DEFAULT_QUOTA, the beta user with its own namespace's allowance
    expect(await ledgerOf('ann')).toEqual([
      { kind: 'grant', amount: 4 },
      { kind: 'debit', amount: 1 },
    ]);
    expect(await budgetOf(world.db, 'beta', config.partnerDefaults)).toMatchObject({ drawn: 2 });
  });

  it('draws past no cap when many batches of new users are decided at once', async () => {
    // When 20 invented users' first tasks come in 20 batches decided concurrently
    const users = Array.from({ length: 20 }, (_, i) => `gamma:u${i}`);
    await Promise.all(users.map((user) => world.react(handlers, accepted(user))));
    // Then the namespace's cap of 5 was drawn exactly (2 + 2 + 1: three users debited), never more
    const granted = await world.db('quota_ledger').where('user_id', 'like', 'gamma:%').where({ kind: 'grant' }).sum<Array<{ sum: string }>>('amount');
    expect(Number(granted[0].sum)).toBe(5);
    const debits = await world.db('quota_ledger').where('user_id', 'like', 'gamma:%').where({ kind: 'debit' }).count<Array<{ count: string }>>('* as count');
    expect(Number(debits[0].count)).toBe(3);
    expect(await budgetOf(world.db, 'gamma', config.partnerDefaults)).toMatchObject({ drawn: 5 });
  });

  it("follows an admin's settings for one namespace, and an explicit grant is given whatever its cap", async () => {
    // Given a namespace whose new users start with nothing
    await setBudget(world.db, 'delta', { newUserQuota: 0 });
    // (the concurrent batches before published past what the world has read: this user's decision is picked out)
    const refused = (await world.react(handlers, accepted('delta:u1'))).find((e) => e.userId === 'delta:u1');
    expect(refused).toMatchObject({ eventType: 'QuotaRejected', reason: 'INSUFFICIENT_QUOTA' });
    // When an admin grants its user quota, and then raises what new users start with
    await grantQuota(world.db, 'delta:u1', 3, 'grant-1', config);
    await setBudget(world.db, 'delta', { newUserQuota: 1, drawCap: 1 });
    // Then that user's task is debited from the grant, and one new user starts with the one unit the cap holds
    const published = await world.react(handlers, accepted('delta:u1'), accepted('delta:u2'), accepted('delta:u3'));
    expect(published.map((e) => e.eventType)).toEqual(['QuotaDebited', 'QuotaDebited', 'QuotaRejected']);
    expect(await budgetOf(world.db, 'delta', config.partnerDefaults)).toEqual({ newUserQuota: 1, drawCap: 1, drawn: 1 });
  });
});
