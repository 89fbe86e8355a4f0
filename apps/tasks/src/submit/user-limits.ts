import { HttpStatus } from '@nestjs/common';
import type { Knex } from 'knex';
import { ProblemWithHeaders } from '@app/service';
import { terminalStates } from '@app/task-state';

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

/** How many of the user's tasks are not finished yet. */
export async function openTasksOf(trx: Knex.Transaction, userId: string): Promise<number> {
  const row = await trx('tasks')
    .where({ user_id: userId })
    .whereNotIn('state', [...terminalStates])
    .count<{ n: string }>('* as n')
    .first();
  return Number(row?.n ?? 0);
}

/**
 * Serialises a user's submissions across instances for the rest of the transaction, so that the
 * open-task count read next cannot be raced past the cap.
 */
export async function lockUser(trx: Knex.Transaction, userId: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 7140002))', [userId]);
}

export function tooManyOpenTasks(userId: string, max: number): ProblemWithHeaders {
  return new ProblemWithHeaders(HttpStatus.TOO_MANY_REQUESTS, `${userId} has ${max} unfinished tasks, the most allowed; wait for some to finish`, {
    'Retry-After': '5',
  });
}
