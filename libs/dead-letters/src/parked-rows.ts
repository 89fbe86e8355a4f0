import type { Knex } from 'knex';

export interface ParkedRow {
  id: string;
  eventId: string;
  eventType: string;
  key: string;
  parkedAt: Date;
  reason: string;
  /** Later unpublished rows of the same key, held back until this one is published. */
  heldBack: number;
}

/** The rows the relay parked, oldest first, each with how many rows of its key wait behind it. */
export async function listParkedRows(knex: Knex): Promise<ParkedRow[]> {
  const rows: Array<{ id: string; event_id: string; event_type: string; message_key: string; parked_at: Date; park_reason: string; held_back: number }> =
    await knex('outbox as p')
      .select('p.id', 'p.event_id', 'p.event_type', 'p.message_key', 'p.parked_at', 'p.park_reason')
      .select(knex.raw('(select count(*) from outbox l where l.message_key = p.message_key and l.id > p.id and l.published_at is null)::int as held_back'))
      .whereNotNull('p.parked_at')
      .whereNull('p.published_at')
      .orderBy('p.id');
  return rows.map((r) => ({
    id: String(r.id),
    eventId: r.event_id,
    eventType: r.event_type,
    key: r.message_key,
    parkedAt: r.parked_at,
    reason: r.park_reason,
    heldBack: r.held_back,
  }));
}

/** Gives parked rows back to the relay (after the broker's limit was raised): all, or those named. */
export async function releaseParkedRows(knex: Knex, ids?: string[]): Promise<number> {
  const query = knex('outbox').whereNotNull('parked_at').whereNull('published_at');
  if (ids) query.whereIn('id', ids);
  return query.update({ parked_at: null, park_reason: null });
}
