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
 * or rolls back, with the work.
 */
export async function claimKey(
  trx: Knex.Transaction,
  scope: KeyScope,
  requestHash: string,
  taskId: string,
  ttlMs: number,
  answer?: { status: number; body: unknown },
): Promise<KeyRow | undefined> {
  const response = { response_status: answer?.status ?? null, response_body: answer ? JSON.stringify(answer.body) : null };
  const claim = { request_hash: requestHash, task_id: taskId, expires_at: new Date(Date.now() + ttlMs), ...response };
  const claimed = await trx('idempotency_keys')
    .insert({ ...scope, ...claim })
    .onConflict(['user_id', 'route', 'key'])
    .merge({ ...claim, created_at: trx.fn.now() })
    .where('idempotency_keys.expires_at', '<', trx.fn.now())
    .returning('task_id');
  return claimed.length === 1 ? undefined : trx('idempotency_keys').where(scope).first();
}
