import type { Knex } from 'knex';
import type { Client } from 'pg';
import { dbStatements } from '@app/metrics';
import type { OutboxRow } from './relay-requests';

/** Where a row goes: a copy's own topic, or its event type's (one topic per type). */
const destination = (t: string) => `coalesce(${t}.topic, ${t}.event_type)`;

/** Parked and not yet due to be tried again. */
export const parkedNow = (t: string) => `(${t}.parked_at is not null and (${t}.parked_until is null or ${t}.parked_until > now()))`;

/** A row Kafka acknowledged, and where it was appended (null where kafkajs did not say). */
export interface Acknowledged {
  id: string;
  partition: number | null;
  offset: string | null;
}

const markSql =
  'update outbox set published_at = clock_timestamp(), kafka_partition = m.partition, kafka_offset = m.place ' +
  'from unnest(?::bigint[], ?::int[], ?::bigint[]) as m(id, partition, place) where outbox.id = m.id';

// Arrays holding nulls: pg sends them as NULL elements (knex's types know only arrays of one kind).
const markBindings = (rows: Acknowledged[]): Knex.Value[] => [
  rows.map((r) => r.id),
  rows.map((r) => r.partition) as unknown as number[],
  rows.map((r) => r.offset) as unknown as string[],
];

/**
 * Up to `limit` unpublished rows but `inFlight` (with the broker), in id order, on the relay's
 * session; rows after a parked row of the same key and destination are not read, so a key's order
 * on each topic holds, and no destination holds another's back. A row parked until a time (its
 * destination refused it) is read again once that time has passed. The same
 * statement marks `marking` published (rows Kafka acknowledged since the last read: one round trip
 * for both), and does not read them again, though its snapshot does not see their mark yet.
 */
export function readUnpublished(knex: Knex, session: Client, inFlight: string[], limit: number, marking: Acknowledged[]): Promise<OutboxRow[]> {
  let query = knex('outbox as o')
    .connection(session)
    .select('o.id', 'o.event_type', 'o.message_key', 'o.payload', 'o.headers', 'o.topic')
    .whereNull('o.published_at')
    .whereRaw(`not ${parkedNow('o')}`)
    .whereNotExists(
      knex('outbox as p')
        .whereRaw('p.message_key = o.message_key')
        .whereRaw('p.id < o.id')
        .whereRaw(`${destination('p')} = ${destination('o')}`)
        .whereRaw(parkedNow('p'))
        .whereNull('p.published_at'),
    )
    .orderBy('o.id')
    .limit(limit);
  if (inFlight.length > 0) query = query.whereRaw('not (o.id = any(?::bigint[]))', [inFlight]);
  if (marking.length > 0)
    query = query.with('marked', knex.raw(markSql, markBindings(marking))).whereRaw('not (o.id = any(?::bigint[]))', [marking.map((r) => r.id)]);
  return query;
}

/** Marks rows published without reading (the relay is stopping). */
export async function markPublished(session: Client, rows: Acknowledged[]): Promise<void> {
  dbStatements.inc(); // its own session's statements pass no knex, which counts the others
  // One array parameter per column rather than one per row
  await session.query(markSql.replace('?', '$1').replace('?', '$2').replace('?', '$3'), markBindings(rows));
}

/** A row the broker will never take (too large): set aside with its reason; later rows of its key wait for it. */
export async function parkRow(session: Client, id: string, reason: string): Promise<void> {
  dbStatements.inc();
  await session.query('update outbox set parked_at = now(), park_reason = $2, parked_until = null where id = $1', [id, reason.slice(0, 1000)]);
}

/**
 * Copies their destination refused, set aside until a later time, when they are tried again: the
 * first retry after `retryMs`, each later one after as long as they have been parked (doubling), at
 * most 5 minutes; `parked_at` stays the time they were first parked.
 */
export async function parkRowsForRetry(session: Client, ids: string[], reason: string, retryMs: number): Promise<void> {
  dbStatements.inc();
  await session.query(
    `update outbox set parked_at = coalesce(parked_at, now()), park_reason = $2,
       parked_until = now() + least(greatest(now() - coalesce(parked_at, now()), $3 * interval '1 millisecond'), interval '5 minutes')
     where id = any($1::bigint[])`,
    [ids, reason.slice(0, 1000), retryMs],
  );
}
