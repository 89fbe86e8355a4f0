import { DomainEvent, Envelope, eventTypes, EventType } from './generated/event-types';

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

/**
 * Events about a user rather than a task: the envelope's `taskId` holds the id of what they are about
 * (a data key, an erasure), which is also their Kafka key. Task checks (the audit's, the campaign's)
 * leave them out.
 */
export const userEventTypes = ['UserDataKey', 'UserErasureRequested', 'UserDataErased'] as const satisfies readonly EventType[];

/** The events of tasks: every other one. */
export const taskEventTypes: EventType[] = eventTypes.filter((type) => !(userEventTypes as readonly string[]).includes(type));

export function isTaskEvent(event: { eventType: string }): boolean {
  return !(userEventTypes as readonly string[]).includes(event.eventType);
}

/** Topics that hold keys: read by the services that need them, never by the auditor or the console. */
export const keyEventTypes = ['UserDataKey'] as const satisfies readonly EventType[];
