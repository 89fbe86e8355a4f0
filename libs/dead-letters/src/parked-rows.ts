import type { Knex } from 'knex';

export interface ParkedRow {
  id: string;
  eventId: string;
  eventType: string;
  key: string;
  parkedAt: Date;
  reason: string;
  /** Where it goes: a copy's own topic (behind the prefix), or its event type's topic. */
  destination: string;
  /** When the relay tries it again by itself (its destination refused it); null: until released. */
  retryAt: Date | null;
  /** Later unpublished rows of the same key and destination, held back until this one is published. */
  heldBack: number;
}

/** The rows the relay parked, oldest first, each with how many rows of its key wait behind it. */
export async function listParkedRows(knex: Knex): Promise<ParkedRow[]> {
  const rows: Array<{
    id: string;
    event_id: string;
    event_type: string;
    message_key: string;
    parked_at: Date;
    park_reason: string;
    destination: string;
    parked_until: Date | null;
    held_back: number;
  }> = await knex('outbox as p')
    .select('p.id', 'p.event_id', 'p.event_type', 'p.message_key', 'p.parked_at', 'p.park_reason', 'p.parked_until')
    .select(knex.raw('coalesce(p.topic, p.event_type) as destination'))
    .select(
      knex.raw(
        '(select count(*) from outbox l where l.message_key = p.message_key and coalesce(l.topic, l.event_type) = coalesce(p.topic, p.event_type) and l.id > p.id and l.published_at is null)::int as held_back',
      ),
    )
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
    destination: r.destination,
    retryAt: r.parked_until,
    heldBack: r.held_back,
  }));
}

/** Gives parked rows back to the relay (after the broker's limit was raised): all, or those named. */
export async function releaseParkedRows(knex: Knex, ids?: string[]): Promise<number> {
  const query = knex('outbox').whereNotNull('parked_at').whereNull('published_at');
  if (ids) query.whereIn('id', ids);
  return query.update({ parked_at: null, park_reason: null, parked_until: null });
}
