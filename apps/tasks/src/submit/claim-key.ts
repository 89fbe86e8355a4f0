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
 */
export async function claimKey(trx: Knex.Transaction, scope: KeyScope, requestHash: string, taskId: string, ttlMs: number): Promise<KeyRow | undefined> {
  const claim = { request_hash: requestHash, task_id: taskId, expires_at: new Date(Date.now() + ttlMs) };
  const claimed = await trx('idempotency_keys')
    .insert({ ...scope, ...claim })
    .onConflict(['user_id', 'route', 'key'])
    .merge({ ...claim, response_status: null, response_body: null, created_at: trx.fn.now() })
    .where('idempotency_keys.expires_at', '<', trx.fn.now())
    .returning('task_id');
  return claimed.length === 1 ? undefined : trx('idempotency_keys').where(scope).first();
}
