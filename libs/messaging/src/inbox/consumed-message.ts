import { afterCommit } from '@app/database';
import type { Knex } from 'knex';
import type { KafkaMessage } from 'kafkajs';
import { DomainEvent } from '@app/events';
import { SpanKind, traceparentFor } from '@app/tracing';
import { addToOutbox } from '../outbox/add-to-outbox';
import { HandlerContext } from './event-handlers';
import { InboxEntry } from './record-in-inbox';

/** A message a consumer read, with where it came from. */
export interface ConsumedMessage {
  consumer: string;
  topic: string;
  partition: number;
  message: KafkaMessage;
}

export function inboxEntryOf(event: DomainEvent, { consumer, topic, partition, message }: ConsumedMessage): InboxEntry {
  return { consumer, eventId: event.eventId, eventType: event.eventType, topic, partition, offset: message.offset };
}

/** A child of the producer's span; an outside producer that set no traceparent gets the task's trace. */
export function consumerSpanOptions(event: DomainEvent, { consumer, topic, message }: ConsumedMessage) {
  const parent = message.headers?.traceparent?.toString() ?? traceparentFor(event.correlationId);
  const facts = {
    taskId: event.taskId,
    eventId: event.eventId,
    eventType: event.eventType,
    correlationId: event.correlationId,
    consumer,
    'messaging.destination.name': topic,
  };
  return { parent, kind: SpanKind.CONSUMER, facts };
}

export function handlerContextFor(trx: Knex.Transaction, { consumer, topic, partition, message }: ConsumedMessage): HandlerContext {
  const traceparent = message.headers?.traceparent?.toString();
  return {
    trx,
    topic,
    partition,
    offset: message.offset,
    // Stamped with this consumer's service: a handler cannot write in another producer's name.
    publish: (event, copyTo) => addToOutbox(trx, { ...event, producer: consumer }, traceparent, copyTo),
    afterCommit: (then) => afterCommit(trx, then),
  };
}
