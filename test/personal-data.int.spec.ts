import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { createKnex, dropDatabase, ensureDatabase, migrateToLatest } from '@app/database';
import { dataKeysByIds, erased, forgetDataKeys, keepDataKey, masterKeysOf, openText, sealText, userDataKey, userDataKeysTable } from '@app/personal-data';
import { TestEnv } from './support/test-env';

/** Per-user data keys kept wrapped in a service's database: issued once, found by id, forgotten for good. */
describe('the data keys a service keeps', () => {
  const env = new TestEnv();
  const url = env.databaseUrl('tasks');
  const master = masterKeysOf(JSON.stringify({ current: 'mk-1', keys: { 'mk-1': randomBytes(32).toString('base64') } }));
  let db: Knex;
  beforeAll(async () => {
    await ensureDatabase(url);
    db = createKnex(url);
    await migrateToLatest(db, [userDataKeysTable]);
  });
  afterAll(async () => {
    await db.destroy();
    await dropDatabase(url);
  });

  it('issues a user one key, even to two transactions at once, and stores it only wrapped', async () => {
    const [first, second] = await Promise.all([
      db.transaction((trx) => userDataKey(trx, 'ann', master)),
      db.transaction((trx) => userDataKey(trx, 'ann', master)),
    ]);
    expect(first.dataKey.keyId).toBe(second.dataKey.keyId);
    expect(first.dataKey.key.equals(second.dataKey.key)).toBe(true);
    expect([first.issued, second.issued].sort()).toEqual([false, true]);
    const rows: Array<{ wrapped: string }> = await db('user_data_keys').where({ user_id: 'ann' });
    expect(rows).toHaveLength(1);
    expect(rows[0].wrapped).toMatch(/^wrapped:v1:mk-1:/);
    expect(Buffer.from(JSON.stringify(await db('user_data_keys').select()))).not.toContain(first.dataKey.key.toString('base64'));
  });

  it('finds keys by id, keeps another service’s key as it came, and once a user is forgotten reads their fields as erased', async () => {
    const { dataKey, wrapped } = await db.transaction((trx) => userDataKey(trx, 'bob', master));
    const sealed = sealText('canary-bob', dataKey);
    await keepDataKey(db, { keyId: dataKey.keyId, userId: 'bob', wrapped }); // the same copy again changes nothing
    const found = await dataKeysByIds(db, [dataKey.keyId], master);
    expect(openText(sealed, (id) => found.get(id))).toBe('canary-bob');

    expect(await db.transaction((trx) => forgetDataKeys(trx, 'bob'))).toEqual([dataKey.keyId]);
    const after = await dataKeysByIds(db, [dataKey.keyId], master);
    expect(openText(sealed, (id) => after.get(id))).toBe(erased);
    // Another user's key is untouched.
    expect((await dataKeysByIds(db, [(await db.transaction((trx) => userDataKey(trx, 'ann', master))).dataKey.keyId], master)).size).toBe(1);
  });

  it('an erasure that begins while a first key is being issued forgets that key, however the two interleave', async () => {
    // Many first submissions and erasures of the same user, started together: the submission holds its
    // transaction open a moment after issuing (sealing, its task row), the erasure starts a random moment later.
    const runs = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const userId = `race-${i}`;
        let issuedAt = Infinity;
        let erasureBeganAt = -Infinity;
        const submission = db.transaction(async (trx) => {
          const key = await userDataKey(trx, userId, master);
          issuedAt = performance.now();
          await sleep(30);
          return key.dataKey.keyId;
        });
        const erasure = (async () => {
          await sleep(Math.random() * 40);
          return db.transaction(async (trx) => {
            erasureBeganAt = performance.now();
            return forgetDataKeys(trx, userId);
          });
        })();
        const [keyId, forgotten] = await Promise.all([submission, erasure]);
        const left = (await db('user_data_keys').where({ user_id: userId })).length;
        return { keyId, forgotten, left, issuedFirst: issuedAt < erasureBeganAt };
      }),
    );
    // Then each key issued before its erasure began is gone, and the erasure names it (its tombstone goes out)
    const issuedFirst = runs.filter((r) => r.issuedFirst);
    expect(issuedFirst.length).toBeGreaterThan(5);
    for (const run of issuedFirst) expect(run).toEqual({ ...run, forgotten: [run.keyId], left: 0 });
    // And otherwise the two happened one after the other, either way: the key forgotten, or issued after and kept
    for (const run of runs.filter((r) => !r.issuedFirst)) {
      expect([
        { forgotten: [run.keyId], left: 0 },
        { forgotten: [], left: 1 },
      ]).toContainEqual({ forgotten: run.forgotten, left: run.left });
    }
  });
});
