import type { PlacedEvent } from './checked-evidence';

/** Each event once, at its first offset: at-least-once delivery makes later copies legitimate. */
export function firstOccurrences(events: PlacedEvent[]): PlacedEvent[] {
  const seen = new Set<string>();
  const sorted = [...events].sort((a, b) =>
    a.topic === b.topic ? (a.partition === b.partition ? a.offset - b.offset : a.partition - b.partition) : a.topic < b.topic ? -1 : 1,
  );
  return sorted.filter((p) => (seen.has(p.event.eventId) ? false : (seen.add(p.event.eventId), true)));
}

/** Events of one task on one topic whose offsets run against the order they occurred in. */
export function outOfOrder(placed: PlacedEvent[]): string[] {
  const problems: string[] = [];
  for (const [key, list] of groupBy(placed, (p) => `${p.topic} ${p.event.taskId}`)) {
    const byOffset = [...list].sort((a, b) => a.offset - b.offset);
    for (let i = 1; i < byOffset.length; i++) {
      if (byOffset[i].event.occurredAt < byOffset[i - 1].event.occurredAt)
        problems.push(`${key}: offset ${byOffset[i].offset} occurred before offset ${byOffset[i - 1].offset}`);
    }
  }
  return problems;
}

export function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}
