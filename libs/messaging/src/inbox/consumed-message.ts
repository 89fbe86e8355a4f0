import { afterCommit } from '@app/database';
import type { Knex } from 'knex';
import type { KafkaMessage } from 'kafkajs';
import { DomainEvent } from '@app/events';
import { externalEvents } from '@app/catalogue';
import { ownTraceparentFor, SpanKind, traceparentFor, validTraceparent } from '@app/tracing';
import { addToOutbox } from '../outbox/add-to-outbox';
import { HandlerContext } from './event-handlers';
import { InboxEntry } from './record-in-inbox';

/** A message a consumer read, with where it came from. */
export interface ConsumedMessage {
  consumer: string;
  topic: string;
  partition: number;
  message: KafkaMessage;
  /** How many times it was re-driven, this once included; absent for a message read off its topic. */
  redrives?: number;
}

export function inboxEntryOf(event: DomainEvent, { consumer, topic, partition, message }: ConsumedMessage): InboxEntry {
  return { consumer, eventId: event.eventId, eventType: event.eventType, topic, partition, offset: message.offset };
}

/**
 * Whether the message was written by an outsider (a partner, the single-partner default): their
 * headers are data. No service produces these events; the ACLs give their topics to outsiders alone.
 */
const fromOutside = (event: DomainEvent) => externalEvents.produces.includes(event.eventType);

/** The traceparent the message carries, when one of the platform's own services wrote it. */
export function trustedTraceparent(event: DomainEvent, message: KafkaMessage): string | undefined {
  return fromOutside(event) ? undefined : message.headers?.traceparent?.toString();
}

/**
 * A child of the producer's span; an outsider's message starts the task's own trace, sampled by its
 * share, and is linked to the outsider's traceparent (never joined: a forged one would steer
 * sampling, or put the work into another task's trace).
 */
export function consumerSpanOptions(event: DomainEvent, { consumer, topic, message }: ConsumedMessage) {
  const outsiders = fromOutside(event) ? validTraceparent(message.headers?.traceparent?.toString()) : undefined;
  const parent = trustedTraceparent(event, message) ?? (fromOutside(event) ? ownTraceparentFor(event.correlationId) : traceparentFor(event.correlationId));
  const facts = {
    taskId: event.taskId,
    eventId: event.eventId,
    eventType: event.eventType,
    correlationId: event.correlationId,
    consumer,
    'messaging.destination.name': topic,
    // Zipkin shows no links: the outsider's trace is named here too, as data.
    outsideTraceparent: outsiders,
  };
  return { parent, links: outsiders ? [outsiders] : [], kind: SpanKind.CONSUMER, facts };
}

export function handlerContextFor(trx: Knex.Transaction, { consumer, topic, partition, message }: ConsumedMessage, event: DomainEvent): HandlerContext {
  const traceparent = trustedTraceparent(event, message);
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
