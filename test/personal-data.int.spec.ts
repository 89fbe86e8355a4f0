import { randomBytes } from 'node:crypto';
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

    expect(await forgetDataKeys(db, 'bob')).toEqual([dataKey.keyId]);
    const after = await dataKeysByIds(db, [dataKey.keyId], master);
    expect(openText(sealed, (id) => after.get(id))).toBe(erased);
    // Another user's key is untouched.
    expect((await dataKeysByIds(db, [(await db.transaction((trx) => userDataKey(trx, 'ann', master))).dataKey.keyId], master)).size).toBe(1);
  });
});
