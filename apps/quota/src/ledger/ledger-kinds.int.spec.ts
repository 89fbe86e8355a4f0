import { ledgerKinds, perTaskKinds } from '@app/quota-ledger';
import { ReactionWorld } from '@test/reaction-world';
import { quotaMigrations } from '../migrations';

/** The kinds in @app/quota-ledger are the ones the migrated database takes (its migrations keep their own lists). */
describe("quota's ledger kinds and its database", () => {
  const world = new ReactionWorld('quota', quotaMigrations);
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const quoted = (definition: string) => [...definition.matchAll(/'([a-z]+)'/g)].map((m) => m[1]).sort();

  it('the check constraint takes exactly ledgerKinds', async () => {
    const { rows } = await world.db.raw(`select pg_get_constraintdef(oid) as definition from pg_constraint where conname = 'quota_ledger_kind'`);
    expect(quoted(rows[0].definition)).toEqual([...ledgerKinds].sort());
    await expect(world.db('quota_ledger').insert({ user_id: 'ann', kind: 'bonus', amount: 1 })).rejects.toThrow(/quota_ledger_kind/);
  });

  it('the once-per-task index covers exactly perTaskKinds', async () => {
    const { rows } = await world.db.raw(`select indexdef from pg_indexes where indexname = 'quota_ledger_one_per_task'`);
    expect(quoted(rows[0].indexdef)).toEqual([...perTaskKinds].sort());
  });
});
