import { randomUUID } from 'node:crypto';
import type { Envelope } from './generated/event-types';
import type { EventBody, EventOf } from './event-types';
import type { EventType } from './generated/event-types';

type Origin = Pick<Envelope, 'taskId' | 'userId' | 'correlationId' | 'causationId'>;

/** A new event with a fresh id and timestamp, in the flow described by `origin`. */
export function newEvent<T extends EventType>(eventType: T, body: EventBody<T>, origin: Origin, producer: string): EventOf<T> {
  const envelope: Envelope<T> = { eventId: randomUUID(), eventType, occurredAt: Date.now(), producer, ...origin };
  return { ...envelope, ...body } as EventOf<T>;
}

/**
 * An event caused by `cause`: same task, user and correlation, and `cause` as its causation. A
 * handler's `publish` stamps the producer; elsewhere it is given (the outbox refuses an event without).
 */
export function causedBy<T extends EventType>(cause: Envelope, eventType: T, body: EventBody<T>, producer = ''): EventOf<T> {
  const origin = { taskId: cause.taskId, userId: cause.userId, correlationId: cause.correlationId, causationId: cause.eventId };
  return newEvent(eventType, body, origin, producer);
}
