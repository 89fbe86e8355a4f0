import * as avro from 'avsc';
import { DomainEvent, EventType, isEventType, loadSchema } from '@app/events';
import { PlatformError } from '@app/failures';

const types = new Map<EventType, avro.Type>();

function typeOf(eventType: EventType): avro.Type {
  let type = types.get(eventType);
  if (!type) {
    type = avro.Type.forSchema(loadSchema(eventType) as avro.Schema);
    types.set(eventType, type);
  }
  return type;
}

/**
 * Refuses an event that its schema would not encode, naming every offending field, so that a bad
 * event is stopped where it is written rather than where it is published.
 */
export function assertValidEvent(event: DomainEvent): void {
  const eventType: unknown = (event as { eventType?: unknown } | undefined)?.eventType;
  if (typeof eventType !== 'string' || !isEventType(eventType)) {
    throw new PlatformError('INVALID_EVENT', `unknown eventType "${String(eventType)}"`);
  }
  if (!event.producer) throw new PlatformError('INVALID_EVENT', `${eventType} ${event.eventId} names no producer`);
  const problems: string[] = [];
  const valid = typeOf(event.eventType).isValid(event, {
    errorHook: (path, value, type) => problems.push(`${path.join('.') || '(record)'}: ${JSON.stringify(value)} is not a valid ${type.typeName}`),
  });
  if (!valid) throw new PlatformError('INVALID_EVENT', `${event.eventType} does not match its schema: ${problems.join('; ')}`);
  const unknown = Object.keys(event).filter((key) => !(typeOf(event.eventType) as avro.types.RecordType).fields.some((f) => f.name === key));
  if (unknown.length) throw new PlatformError('INVALID_EVENT', `${event.eventType} has fields its schema lacks: ${unknown.join(', ')}`);
}
