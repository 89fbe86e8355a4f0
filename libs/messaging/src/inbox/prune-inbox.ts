import type { Knex } from 'knex';
import { FailureLog, letGo } from '@app/failures';

/** Deletes inbox rows older than the retention; only ever run when INBOX_RETENTION is set. */
export async function pruneInbox(knex: Knex, retentionMs: number): Promise<number> {
  return knex('inbox')
    .where('processed_at', '<', new Date(Date.now() - retentionMs))
    .delete();
}

/** Prunes the inbox at most hourly, more often for a shorter retention; the function it gives stops it. */
export function pruneInboxEvery(knex: Knex, retentionMs: number, logger: FailureLog): () => void {
  const timer = setInterval(
    () => void pruneInbox(knex, retentionMs).catch(letGo('inbox pruning failed; the next round tries again', logger, { level: 'warn' })),
    Math.min(retentionMs, 3_600_000),
  );
  return () => clearInterval(timer);
}
