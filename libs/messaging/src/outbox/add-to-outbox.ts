import type { Knex } from 'knex';
import { afterCommit } from '@app/database';
import { DomainEvent } from '@app/events';
import { assertValidEvent } from '../event-validator';
import { traceparentOf, childTraceparent } from '@app/tracing';
import { outboxCommitted, outboxSignal } from './outbox-signal';

/**
 * Writes the event in the caller's transaction (a transaction only: an event written on its own
 * would be published whether or not the change it reports was made), so that it is published if and only if the
 * business change commits. Kafka key = taskId. An event its schema refuses is never written.
 * The row keeps the trace context it was written under (the active span: a request, a message being
 * handled, a model attempt), so the relay publishes it in that trace. Without tracing, `traceparent`
 * (that of the message being handled, if any) is continued instead.
 */
export async function addToOutbox(trx: Knex.Transaction, event: DomainEvent, traceparent?: string, copyTo: string[] = []): Promise<void> {
  await addAllToOutbox(trx, [{ event, traceparent: traceparentOf() ?? childTraceparent(traceparent, event.correlationId), copyTo }]);
}

/** An event to write, and the topics (behind the prefix) a copy of it goes to besides its own. */
export interface OutboxEntry {
  event: DomainEvent;
  traceparent: string;
  copyTo?: string[];
}

/**
 * The topics, behind the prefix, an event is copied to besides its own, by a rule of the service
 * (tasks copies an outcome to its user's partner), asked in the writing transaction; a copy is a
 * row of its own, published with the same eventId. None unless a service sets it at boot (see
 * copyOutboxEvents).
 */
export type OutboxCopies = (event: DomainEvent, trx: Knex.Transaction) => string[] | Promise<string[]>;
let copiesOf: OutboxCopies = () => [];

/** The service's rule for copies, set once as it boots. */
export function copyOutboxEvents(rule: OutboxCopies): void {
  copiesOf = rule;
}

/** Events with the trace context each is published in, and their copies, written by one statement (see addToOutbox). */
export async function addAllToOutbox(trx: Knex.Transaction, entries: OutboxEntry[]): Promise<void> {
  const write = await outboxWriteOf(trx, entries);
  if (write) await write.insert;
}

/**
 * The insert addAllToOutbox runs, not run: for a caller that writes the events with its own rows by
 * one statement (a `with` of it). Wrapped, since a query builder awaited runs. Undefined for no
 * events; the relay is woken when `trx` commits.
 */
export async function outboxWriteOf(trx: Knex.Transaction, entries: OutboxEntry[]): Promise<OutboxWrite | undefined> {
  if (entries.length === 0) return undefined;
  const rows: Array<ReturnType<typeof outboxRowOf> & { topic?: string }> = [];
  for (const { event, traceparent, copyTo = [] } of entries) {
    const row = outboxRowOf(event, traceparent);
    rows.push(row, ...[...new Set([...copyTo, ...(await copiesOf(event, trx))])].map((topic) => ({ ...row, topic })));
  }
  wakeRelayOnCommit(trx);
  return { insert: trx('outbox').insert(rows) };
}

/** An outbox insert to run within a statement of the caller's. */
export interface OutboxWrite {
  insert: Knex.QueryBuilder;
}

/**
 * The outbox row of an event, for a statement that writes it with other rows (see addToOutbox);
 * throws for an event its schema refuses. Whoever writes it calls wakeRelayOnCommit.
 */
export function outboxRowOf(event: DomainEvent, traceparent: string) {
  assertValidEvent(event);
  return {
    event_id: event.eventId,
    event_type: event.eventType,
    message_key: event.taskId,
    payload: JSON.stringify(event),
    headers: JSON.stringify({ eventId: event.eventId, eventType: event.eventType, traceparent }),
  };
}

/** The relay in this process publishes at once what `trx` wrote to the outbox, once it commits. */
export function wakeRelayOnCommit(trx: Knex.Transaction): void {
  afterCommit(trx, wakeRelay);
}

/** The relay in this process publishes at once what a statement that committed wrote to the outbox. */
export function wakeRelay(): void {
  outboxSignal.emit(outboxCommitted);
}
