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
 * claim is new (an expired claim is forgotten first), or the row of the earlier claim. A concurrent
 * claim of the same key waits here until the first transaction ends.
 */
export async function claimKey(trx: Knex.Transaction, scope: KeyScope, requestHash: string, taskId: string, ttlMs: number): Promise<KeyRow | undefined> {
  await trx('idempotency_keys').where(scope).where('expires_at', '<', trx.fn.now()).delete();
  const claimed = await trx('idempotency_keys')
    .insert({ ...scope, request_hash: requestHash, task_id: taskId, expires_at: new Date(Date.now() + ttlMs) })
    .onConflict(['user_id', 'route', 'key'])
    .ignore()
    .returning('task_id');
  return claimed.length === 1 ? undefined : trx('idempotency_keys').where(scope).first();
}
