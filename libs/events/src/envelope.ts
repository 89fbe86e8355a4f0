/**
 * The fields every event carries; `occurredAt` is epoch milliseconds (Avro timestamp-millis). `T` is
 * one of the generated event types (which build on this, hence only a string here).
 */
export interface Envelope<T extends string = string> {
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
