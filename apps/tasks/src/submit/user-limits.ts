import { HttpStatus } from '@nestjs/common';
import type { Knex } from 'knex';
import { ProblemWithHeaders } from '@app/service';

/** A table of counts kept per holder (a user, a partner): its name and the column that names the holder. */
export interface LimitTable {
  table: string;
  holder: string;
}

/** Each user's rate bucket and open-task count; a partner's are in partners/partner-limits. */
export const userBuckets: LimitTable = { table: 'rate_buckets', holder: 'user_id' };
export const userSlots: LimitTable = { table: 'user_open_tasks', holder: 'user_id' };

/**
 * Takes one token from the holder's bucket (refilled at `rate` a second, holding at most `burst`), in
 * the database so that every instance of the service shares it: undefined when taken, or the whole
 * seconds until one is there.
 */
export async function takeToken(
  db: Knex | Knex.Transaction,
  { table, holder }: LimitTable,
  who: string,
  rate: number,
  burst: number,
): Promise<number | undefined> {
  const refilled = `least(?, b.tokens + extract(epoch from (clock_timestamp() - b.updated_at)) * ?)`;
  const { rows } = await db.raw<{ rows: Array<{ tokens: number }> }>(
    `insert into ?? as b (??, tokens, updated_at) values (?, ?, clock_timestamp())
     on conflict (??) do update set tokens = ${refilled} - 1, updated_at = clock_timestamp()
     where ${refilled} >= 1
     returning tokens`,
    [table, holder, who, burst - 1, holder, burst, rate, burst, rate],
  );
  if (rows.length === 1) return undefined;
  const bucket = await db(table)
    .where({ [holder]: who })
    .first();
  return Math.max(1, Math.ceil((1 - Number(bucket?.tokens ?? 0)) / rate));
}

/** takeToken from the user's bucket; 429 with Retry-After when it is empty. */
export async function takeRateToken(db: Knex | Knex.Transaction, userId: string, rate: number, burst: number): Promise<void> {
  const waitSeconds = await takeToken(db, userBuckets, userId, rate, burst);
  if (waitSeconds === undefined) return;
  throw new ProblemWithHeaders(HttpStatus.TOO_MANY_REQUESTS, `more than ${rate} tasks a second (burst ${burst}) for ${userId}; slow down`, {
    'Retry-After': String(waitSeconds),
  });
}

/** How many of the user's accepted tasks are not finished yet. */
export async function openTasksOf(trx: Knex.Transaction, userId: string): Promise<number> {
  const row = await trx('user_open_tasks').where({ user_id: userId }).first('open_tasks');
  return row?.open_tasks ?? 0;
}

/**
 * Takes one of the holder's `max` open-task slots, unless all are taken: one conditional update. Its
 * row lock lasts until the transaction ends, so the caller takes it last, just before its commit:
 * one holder's submissions then wait on each other only for that commit.
 */
export async function takeOpenTaskSlot(trx: Knex.Transaction, slots: LimitTable, who: string, max: number): Promise<boolean> {
  const { rows } = await openTaskSlotTaken(trx, slots, who, max);
  return rows.length === 1;
}

/** The statement takeOpenTaskSlot runs, for a statement that takes the slot with other writes: a row when it was taken. */
export function openTaskSlotTaken(trx: Knex.Transaction, { table, holder }: LimitTable, who: string, max: number): Knex.Raw<{ rows: unknown[] }> {
  return trx.raw(
    `insert into ?? as u (??, open_tasks) values (?, 1)
     on conflict (??) do update set open_tasks = u.open_tasks + 1 where u.open_tasks < ?
     returning open_tasks`,
    [table, holder, who, holder, max],
  );
}

/** The statement that gives back the slots of tasks that reached their end, `finished` per holder; undefined for none. */
export function openTaskSlotsReleased(trx: Knex.Transaction, { table, holder }: LimitTable, finished: ReadonlyMap<string, number>): Knex.Raw | undefined {
  if (finished.size === 0) return undefined;
  const rows = [...finished].map(([who, n]) => ({ who, n }));
  return trx.raw(
    `update ?? as u set open_tasks = greatest(u.open_tasks - r.n, 0)
     from jsonb_to_recordset(?::jsonb) as r(who text, n integer) where u.?? = r.who`,
    [table, JSON.stringify(rows), holder],
  );
}

/**
 * Serialises a user's outside requests across instances for the rest of the transaction, so that
 * two of them are decided (key looked up, claimed) one after the other.
 */
export async function lockUser(trx: Knex.Transaction, userId: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 7140002))', [userId]);
}

export function tooManyOpenTasks(userId: string, max: number): ProblemWithHeaders {
  return new ProblemWithHeaders(HttpStatus.TOO_MANY_REQUESTS, `${userId} has ${max} unfinished tasks, the most allowed; wait for some to finish`, {
    'Retry-After': '5',
  });
}
