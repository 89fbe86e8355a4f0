import type { Knex } from 'knex';

/** Deletes inbox rows older than the retention; only ever run when INBOX_RETENTION is set. */
export async function pruneInbox(knex: Knex, retentionMs: number): Promise<number> {
  return knex('inbox')
    .where('processed_at', '<', new Date(Date.now() - retentionMs))
    .delete();
}
