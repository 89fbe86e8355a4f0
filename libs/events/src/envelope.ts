import type { DomainEvent, EventType } from './generated/event-types';

/** The fields every event carries; `occurredAt` is epoch milliseconds (Avro timestamp-millis). */
export interface Envelope<T extends EventType = EventType> {
  eventId: string;
  eventType: T;
  occurredAt: number;
  taskId: string;
  userId: string;
  correlationId: string;
  causationId: string | null;
  producer: string;
}

export const envelopeFields = ['eventId', 'eventType', 'occurredAt', 'taskId', 'userId', 'correlationId', 'causationId', 'producer'] as const;

export type EventOf<T extends EventType> = Extract<DomainEvent, { eventType: T }>;

/** An event's own fields, without the envelope: what a handler decides. */
export type EventBody<T extends EventType> = Omit<EventOf<T>, keyof Envelope>;
