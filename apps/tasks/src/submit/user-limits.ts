import { HttpStatus } from '@nestjs/common';
import type { Knex } from 'knex';
import { ProblemWithHeaders } from '@app/service';

/**
 * Takes one token from the user's bucket (refilled at `rate` a second, holding at most `burst`), in
 * the database so that every instance of the service shares it; 429 with Retry-After when empty.
 */
export async function takeRateToken(knex: Knex | Knex.Transaction, userId: string, rate: number, burst: number): Promise<void> {
  const refilled = `least(?, rate_buckets.tokens + extract(epoch from (clock_timestamp() - rate_buckets.updated_at)) * ?)`;
  const { rows } = await knex.raw<{ rows: Array<{ tokens: number }> }>(
    `insert into rate_buckets (user_id, tokens, updated_at) values (?, ?, clock_timestamp())
     on conflict (user_id) do update set tokens = ${refilled} - 1, updated_at = clock_timestamp()
     where ${refilled} >= 1
     returning tokens`,
    [userId, burst - 1, burst, rate, burst, rate],
  );
  if (rows.length === 1) return;
  const bucket = await knex('rate_buckets').where({ user_id: userId }).first();
  const waitSeconds = Math.max(1, Math.ceil((1 - Number(bucket?.tokens ?? 0)) / rate));
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
 * Takes one of the user's `max` open-task slots, unless all are taken: one conditional update. Its
 * row lock lasts until the transaction ends, so the caller takes it last, just before its commit:
 * one user's submissions then wait on each other only for that commit.
 */
export async function takeOpenTaskSlot(trx: Knex.Transaction, userId: string, max: number): Promise<boolean> {
  const { rows } = await openTaskSlotTaken(trx, userId, max);
  return rows.length === 1;
}

/** The statement takeOpenTaskSlot runs, for a statement that takes the slot with other writes: a row when it was taken. */
export function openTaskSlotTaken(trx: Knex.Transaction, userId: string, max: number): Knex.Raw<{ rows: unknown[] }> {
  return trx.raw(
    `insert into user_open_tasks as u (user_id, open_tasks) values (?, 1)
     on conflict (user_id) do update set open_tasks = u.open_tasks + 1 where u.open_tasks < ?
     returning open_tasks`,
    [userId, max],
  );
}

/** The statement that gives back the slots of tasks that reached their end, `finished` per user; undefined for none. */
export function openTaskSlotsReleased(trx: Knex.Transaction, finished: ReadonlyMap<string, number>): Knex.Raw | undefined {
  if (finished.size === 0) return undefined;
  const rows = [...finished].map(([user_id, n]) => ({ user_id, n }));
  return trx.raw(
    `update user_open_tasks as u set open_tasks = greatest(u.open_tasks - r.n, 0)
     from jsonb_to_recordset(?::jsonb) as r(user_id text, n integer) where u.user_id = r.user_id`,
    [JSON.stringify(rows)],
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
