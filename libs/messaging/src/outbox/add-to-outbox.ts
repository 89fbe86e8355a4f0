import type { Knex } from 'knex';
import { DomainEvent } from '@app/events';
import { assertValidEvent } from '../event-validator';
import { childTraceparent } from '../trace';
import { outboxCommitted, outboxSignal } from './outbox-signal';

/**
 * Writes the event in the caller's transaction, so that it is published if and only if the
 * business change commits. Kafka key = taskId. An event its schema refuses is never written.
 * `traceparent` is that of the message being handled, if any: the new event continues its trace.
 */
export async function addToOutbox(trx: Knex | Knex.Transaction, event: DomainEvent, traceparent?: string): Promise<void> {
  assertValidEvent(event);
  const headers = { eventId: event.eventId, eventType: event.eventType, traceparent: childTraceparent(traceparent, event.correlationId) };
  await trx('outbox').insert({
    event_id: event.eventId,
    event_type: event.eventType,
    message_key: event.taskId,
    payload: JSON.stringify(event),
    headers: JSON.stringify(headers),
  });
  const wake = () => outboxSignal.emit(outboxCommitted);
  if ('executionPromise' in trx && trx.isTransaction) trx.executionPromise.then(wake, () => undefined);
  else wake();
}
