import type { EventType } from './event-types';

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

export const envelopeFields = [
  'eventId',
  'eventType',
  'occurredAt',
  'taskId',
  'userId',
  'correlationId',
  'causationId',
  'producer',
] as const;

export interface TaskRequested extends Envelope<'TaskRequested'> {
  idempotencyKey: string | null;
  reportType: string;
  /** JSON object text */
  input: string;
}

export type DomainEvent = TaskRequested;
