import type { Knex } from 'knex';
import { afterCommit } from '@app/database';
import { DomainEvent } from '@app/events';
import { assertValidEvent } from '../event-validator';
import { traceparentOf } from '@app/tracing';
import { childTraceparent } from '../trace';
import { outboxCommitted, outboxSignal } from './outbox-signal';

/**
 * Writes the event in the caller's transaction (a transaction only: an event written on its own
 * would be published whether or not the change it reports was made), so that it is published if and only if the
 * business change commits. Kafka key = taskId. An event its schema refuses is never written.
 * The row keeps the trace context it was written under (the active span: a request, a message being
 * handled, a model attempt), so the relay publishes it in that trace. Without tracing, `traceparent`
 * (that of the message being handled, if any) is continued instead.
 */
export async function addToOutbox(trx: Knex.Transaction, event: DomainEvent, traceparent?: string): Promise<void> {
  assertValidEvent(event);
  const headers = { eventId: event.eventId, eventType: event.eventType, traceparent: traceparentOf() ?? childTraceparent(traceparent, event.correlationId) };
  await trx('outbox').insert({
    event_id: event.eventId,
    event_type: event.eventType,
    message_key: event.taskId,
    payload: JSON.stringify(event),
    headers: JSON.stringify(headers),
  });
  afterCommit(trx, () => outboxSignal.emit(outboxCommitted));
}
