import type { Knex } from 'knex';
import type { Migration } from '@app/database';
import { DataKey, newDataKey, rewrapDataKey, unwrapDataKey, wrapDataKey } from './data-keys';
import { MasterKeys } from './master-keys';

/** The data keys a service keeps, wrapped: one per user. Erasing a user deletes its row. */
export const userDataKeysTable: Migration = {
  name: '000-user-data-keys',
  async up(knex) {
    await knex.schema.createTable('user_data_keys', (t) => {
      t.uuid('key_id').primary();
      t.text('user_id').notNullable().unique();
      t.text('wrapped').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
  },
  async down(knex) {
    await knex.schema.dropTable('user_data_keys');
  },
};

interface KeyRow {
  key_id: string;
  user_id: string;
  wrapped: string;
}

/**
 * Issuing and forgetting a user's key take this lock for the rest of their transaction, so they
 * happen one after the other: a key being issued when an erasure begins is forgotten by it (the
 * erasure waits for it to commit), and one issued after it is the user's new key. Without it, a key
 * inserted but not yet committed was invisible to the erasure's delete and outlived it.
 */
const userKeyLock = 'pg_advisory_xact_lock(hashtextextended(?, 7140003))';

/**
 * The user's data key, made and stored (wrapped) in the caller's transaction when the user has none
 * yet: `wrapped` is what others who need it are sent, `issued` says it was made now. Two transactions
 * that make one at once agree on the first to commit; an erasure of the user waits for this one.
 */
export async function userDataKey(trx: Knex.Transaction, userId: string, master: MasterKeys): Promise<{ dataKey: DataKey; wrapped: string; issued: boolean }> {
  const made = newDataKey(userId);
  const wrapped = wrapDataKey(made, master);
  // One statement when the user has a key, or gets one now (the lock taken before the insert); a
  // second only when another transaction made one meanwhile (its row, committed while this one
  // waited, is not in this statement's view).
  const { rows } = await trx.raw<{ rows: Array<KeyRow & { issued: boolean }> }>(
    `with serialised as (select ${userKeyLock}),
     made as (insert into user_data_keys (key_id, user_id, wrapped) select ?, ?, ? from serialised on conflict (user_id) do nothing
       returning key_id, user_id, wrapped, true as issued)
     select * from made union all
     select key_id, user_id, wrapped, false from user_data_keys where user_id = ? and not exists (select 1 from made)`,
    [userId, made.keyId, userId, wrapped, userId],
  );
  const row = rows[0] ?? (await trx('user_data_keys').where({ user_id: userId }).first<KeyRow>());
  if (row.issued) return { dataKey: made, wrapped, issued: true };
  return { dataKey: unwrapDataKey(row.wrapped, { keyId: row.key_id, userId }, master), wrapped: row.wrapped, issued: false };
}

/**
 * A key another service issued, kept as it came (wrapped); a copy already kept takes its new wrapping
 * (a rotation). The issuer makes a user a new key only once their old one was erased: another key of
 * the user still kept here is that one, its erasure not arrived yet (it may travel on another
 * partition), and goes now.
 */
export async function keepDataKey(db: Knex, key: { keyId: string; userId: string; wrapped: string }): Promise<void> {
  await db('user_data_keys').where({ user_id: key.userId }).whereNot({ key_id: key.keyId }).delete();
  await db('user_data_keys').insert({ key_id: key.keyId, user_id: key.userId, wrapped: key.wrapped }).onConflict('key_id').merge(['wrapped']);
}

/** The keys of these ids this service keeps, unwrapped; an id it does not keep (erased) is absent. */
export async function dataKeysByIds(db: Knex, keyIds: string[], master: MasterKeys): Promise<Map<string, DataKey>> {
  if (keyIds.length === 0) return new Map();
  const rows: KeyRow[] = await db('user_data_keys').whereIn('key_id', [...new Set(keyIds)]);
  return new Map(rows.map((row) => [row.key_id, unwrapDataKey(row.wrapped, { keyId: row.key_id, userId: row.user_id }, master)]));
}

/**
 * Forgets the user's keys: what they sealed can no longer be read here. The ids of the keys
 * forgotten, a key still being issued included (it waits for that transaction: see userKeyLock).
 */
export async function forgetDataKeys(trx: Knex.Transaction, userId: string): Promise<string[]> {
  await trx.raw(`select ${userKeyLock}`, [userId]);
  const rows: Array<{ key_id: string }> = await trx('user_data_keys').where({ user_id: userId }).delete().returning('key_id');
  return rows.map((row) => row.key_id);
}

/** Forgets one key (its erasure came from the service that issued it). */
export async function forgetDataKey(db: Knex, keyId: string): Promise<number> {
  return db('user_data_keys').where({ key_id: keyId }).delete();
}

/**
 * Master key rotation: every key this service keeps that is wrapped under another master key is
 * wrapped again under the current one. The keys rewrapped, for the issuer to send on (so that every
 * other copy follows, and the old master key can retire).
 */
export async function rewrapStoredKeys(trx: Knex.Transaction, master: MasterKeys): Promise<Array<{ keyId: string; userId: string; wrapped: string }>> {
  const rows: KeyRow[] = await trx('user_data_keys').whereNot('wrapped', 'like', `wrapped:v1:${master.current}:%`).forUpdate();
  const rewrapped = rows.map((row) => ({
    keyId: row.key_id,
    userId: row.user_id,
    wrapped: rewrapDataKey(row.wrapped, { keyId: row.key_id, userId: row.user_id }, master),
  }));
  for (const key of rewrapped) await trx('user_data_keys').where({ key_id: key.keyId }).update({ wrapped: key.wrapped });
  return rewrapped;
}
