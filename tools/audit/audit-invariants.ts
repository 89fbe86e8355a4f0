import type { DomainEvent } from '@app/events';
import type { AuditReport } from './audit-report';
import { StreamingAudit } from './streaming-audit';

export type { AuditReport, InvariantName, Violation } from './audit-report';

export interface TaskAudit {
  taskId: string;
  userId: string;
  requestedAt: number | null;
  outcome: 'TaskCompleted' | 'TaskFailed' | 'TaskRejected' | null;
  events: DomainEvent[];
}

/** A request ends in exactly one of these: done, failed, or (an outside request) not accepted. */
const terminalTypes = new Set<string>(['TaskCompleted', 'TaskFailed', 'TaskRejected']);

/** Every event once, by eventId (at-least-once delivery makes copies legitimate), grouped by task in time order. */
export function timelines(events: DomainEvent[]): { tasks: Map<string, TaskAudit>; duplicates: number } {
  const seen = new Set<string>();
  const tasks = new Map<string, TaskAudit>();
  let duplicates = 0;
  for (const event of events) {
    if (seen.has(event.eventId)) {
      duplicates++;
      continue;
    }
    seen.add(event.eventId);
    const task = tasks.get(event.taskId) ?? { taskId: event.taskId, userId: event.userId, requestedAt: null, outcome: null, events: [] };
    task.events.push(event);
    tasks.set(event.taskId, task);
  }
  for (const task of tasks.values()) {
    task.events.sort((a, b) => a.occurredAt - b.occurredAt);
    task.requestedAt = task.events.find((e) => e.eventType === 'TaskRequested' || e.eventType === 'TaskAccepted')?.occurredAt ?? null;
    task.outcome = (task.events.find((e) => terminalTypes.has(e.eventType))?.eventType as TaskAudit['outcome']) ?? null;
  }
  return { tasks, duplicates };
}

/** TASK_DEADLINE plus its grace, the tasks service's defaults: by then every task should have ended. */
export const defaultStuckAfterMs = 20 * 60_000;

/**
 * Checks the system's promises over everything that was published, naming each broken one (see
 * StreamingAudit, which does the work event by event for histories too long to hold).
 */
export function audit(events: DomainEvent[], now = Date.now(), stuckAfterMs = defaultStuckAfterMs): AuditReport {
  const streaming = new StreamingAudit();
  for (const event of events) streaming.add(event);
  return streaming.report(now, stuckAfterMs);
}
