/** Every event of the system: past-tense names, one Avro schema and one topic each. */
export const eventTypes = ['TaskRequested'] as const;
export type EventType = (typeof eventTypes)[number];

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
