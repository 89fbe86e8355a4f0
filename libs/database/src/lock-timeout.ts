import type { Knex } from 'knex';

/** PostgreSQL's SQLSTATE for a lock not granted within the transaction's lock_timeout. */
const lockNotAvailable = '55P03';

/** The transaction waits for a row at most `ms`, then its statement fails (isLockTimeout) rather than waiting on. */
export async function setLockTimeout(trx: Knex.Transaction, ms: number): Promise<void> {
  await trx.raw(`set local lock_timeout = ${Math.max(1, Math.round(ms))}`);
}

/** A row someone else held past the lock timeout: busy, not broken — asked again shortly, it is there. */
export function isLockTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === lockNotAvailable;
}
