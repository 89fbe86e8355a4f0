import type { Envelope } from './envelope';
import { DomainEvent, eventTypes, EventType } from './generated/event-types';

export function isEventType(value: string): value is EventType {
  return (eventTypes as readonly string[]).includes(value);
}

/** `TaskRequested` → `task-requested`, behind the optional TOPIC_PREFIX. */
export function topicFor(eventType: EventType, prefix = ''): string {
  return prefix + eventType.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

export function subjectFor(topic: string): string {
  return `${topic}-value`;
}

export type EventOf<T extends EventType> = Extract<DomainEvent, { eventType: T }>;

/** An event's own fields, without the envelope: what a handler decides. */
export type EventBody<T extends EventType> = Omit<EventOf<T>, keyof Envelope>;
