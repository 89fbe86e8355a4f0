import type { Knex } from 'knex';

export interface KeyScope {
  user_id: string;
  route: string;
  key: string;
}

export interface KeyRow {
  task_id: string;
  request_hash: string;
  response_status: number | null;
  response_body: unknown;
}

/**
 * Claims an idempotency key for a task, in the caller's transaction. Returns undefined when the
 * claim is new (an expired claim is taken over as if it had been forgotten), or the row of the
 * earlier claim. A concurrent claim of the same key waits here until the first transaction ends.
 * `answer`, when the answer is known before the work is done, is stored with the claim: it commits,
 * or rolls back, with the work. `lockTimeoutMs`, when given, bounds that wait and every later one
 * of the transaction (PostgreSQL's lock_timeout, set by the same statement before it may wait).
 */
export async function claimKey(
  trx: Knex.Transaction,
  scope: KeyScope,
  requestHash: string,
  taskId: string,
  ttlMs: number,
  answer?: { status: number; body: unknown },
  lockTimeoutMs?: number,
): Promise<KeyRow | undefined> {
  const claim = {
    request_hash: requestHash,
    task_id: taskId,
    expires_at: new Date(Date.now() + ttlMs),
    response_status: answer?.status ?? null,
    response_body: answer ? JSON.stringify(answer.body) : null,
  };
  const row = { ...scope, ...claim };
  const columns = Object.keys(row);
  // The row comes from `timeout`: the setting is made before the insert meets a claim it waits for.
  const timeout = lockTimeoutMs === undefined ? 'select 1' : `select set_config('lock_timeout', ?, true)`;
  const { rows } = await trx.raw<{ rows: Array<{ task_id: string }> }>(
    `with timeout as (${timeout})
     insert into idempotency_keys (${columns.map(() => '??').join(', ')}) select ${columns.map(() => '?').join(', ')} from timeout
     on conflict (user_id, route, key) do update set ${Object.keys(claim)
       .map(() => `?? = excluded.??`)
       .join(', ')}, created_at = now()
     where idempotency_keys.expires_at < now()
     returning task_id`,
    [
      ...(lockTimeoutMs === undefined ? [] : [`${Math.max(1, Math.round(lockTimeoutMs))}ms`]),
      ...columns,
      ...Object.values(row),
      ...Object.keys(claim).flatMap((column) => [column, column]),
    ],
  );
  return rows.length === 1 ? undefined : trx('idempotency_keys').where(scope).first();
}
