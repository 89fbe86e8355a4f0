import type { Knex } from 'knex';

/** The outbox's backlog, for its gauges: rows not yet published, and how long the oldest has waited. */
export async function outboxBacklog(knex: Knex): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const [row] = await knex('outbox')
    .whereNull('published_at')
    .select(knex.raw('count(*)::int as pending'), knex.raw('coalesce(extract(epoch from now() - min(created_at)), 0)::float as age'));
  return { pending: row.pending, oldestAgeSeconds: row.age };
}
