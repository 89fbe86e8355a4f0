import type { Knex } from 'knex';

export interface OutboxBacklog {
  /** Rows not yet published, parked ones included. */
  pending: number;
  /** How long the oldest row that is not parked has waited: what stops the platform's flow. */
  oldestAgeSeconds: number;
  /** Rows set aside (too large, or their destination refused them): each holds back its own key and destination only. */
  parked: number;
}

/** The outbox's backlog, for its gauges. */
export async function outboxBacklog(knex: Knex): Promise<OutboxBacklog> {
  const [row] = await knex('outbox')
    .whereNull('published_at')
    .select(
      knex.raw('count(*)::int as pending'),
      knex.raw('coalesce(extract(epoch from now() - min(created_at) filter (where parked_at is null)), 0)::float as age'),
      knex.raw('(count(*) filter (where parked_at is not null))::int as parked'),
    );
  return { pending: row.pending, oldestAgeSeconds: row.age, parked: row.parked };
}
