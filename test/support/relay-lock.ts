import type { Knex } from 'knex';
import { relayLockKey } from '@app/messaging/testing';

/** The backend holding the relay's lock in `db`'s database, if any (a bigint key below 2^32 is objid, with classid 0). */
export async function relayLockHolder(db: Knex): Promise<number | undefined> {
  const { rows } = await db.raw<{ rows: Array<{ pid: number }> }>(
    `select pid from pg_locks where locktype = 'advisory' and granted and classid = 0 and objid = ?
       and database = (select oid from pg_database where datname = current_database())`,
    [relayLockKey],
  );
  return rows[0]?.pid;
}
