import type { DomainEvent } from '@app/events';

export type InvariantName =
  | 'ONE_TERMINAL_OUTCOME'
  | 'ONE_DEBIT_PER_TASK'
  | 'NO_REFUND_WITHOUT_DEBIT'
  | 'REFUND_AFTER_FAILED_GENERATION'
  | 'USER_LEDGER_BALANCES'
  | 'ONE_NOTIFICATION_PER_OUTCOME'
  | 'NO_TASK_STUCK_PAST_DEADLINE'
  | 'NO_REFUND_OF_COMPLETED_TASK';

export interface Violation {
  invariant: InvariantName;
  /** The task concerned, or the user for USER_LEDGER_BALANCES. */
  subject: string;
  eventIds: string[];
  message: string;
}

export interface TaskAudit {
  taskId: string;
  userId: string;
  requestedAt: number | null;
  outcome: 'TaskCompleted' | 'TaskFailed' | 'TaskRejected' | null;
  events: DomainEvent[];
}

export interface AuditReport {
  events: number;
  duplicates: number;
  tasks: number;
  inFlight: Array<{ taskId: string; ageMs: number | null }>;
  violations: Violation[];
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
 * Checks the system's promises over everything that was published, naming each broken one. A task
 * requested more than `stuckAfterMs` ago with no outcome is stuck: the tasks service's deadline
 * should have ended it.
 */
export function audit(events: DomainEvent[], now = Date.now(), stuckAfterMs = defaultStuckAfterMs): AuditReport {
  const { tasks, duplicates } = timelines(events);
  const violations: Violation[] = [];
  const inFlight: AuditReport['inFlight'] = [];
  const perUser = new Map<string, { debits: number; refunds: number; completed: number }>();

  for (const task of tasks.values()) {
    const of = (type: DomainEvent['eventType']) => task.events.filter((e) => e.eventType === type);
    const ids = (list: DomainEvent[]) => list.map((e) => e.eventId);
    const terminal = task.events.filter((e) => terminalTypes.has(e.eventType));
    const [debits, refunds, failures] = [of('QuotaDebited'), of('QuotaRefunded'), of('GenerationFailed')];
    const violate = (invariant: InvariantName, list: DomainEvent[], message: string) =>
      violations.push({ invariant, subject: task.taskId, eventIds: ids(list), message });

    if (terminal.length > 1) violate('ONE_TERMINAL_OUTCOME', terminal, `task has ${terminal.length} terminal events`);
    if (terminal.length === 0 && task.requestedAt !== null) {
      const ageMs = now - task.requestedAt;
      inFlight.push({ taskId: task.taskId, ageMs });
      if (ageMs > stuckAfterMs) violate('NO_TASK_STUCK_PAST_DEADLINE', [], `no outcome ${Math.round(ageMs / 1000)} s after the request`);
    }
    if (debits.length > 1) violate('ONE_DEBIT_PER_TASK', debits, `task was debited ${debits.length} times`);
    if (refunds.length > 0 && debits.length === 0) violate('NO_REFUND_WITHOUT_DEBIT', refunds, 'task was refunded but never debited');
    const completed = [...of('GenerationSucceeded'), ...of('TaskCompleted')];
    if (refunds.length > 0 && completed.length > 0) violate('NO_REFUND_OF_COMPLETED_TASK', [...completed, ...refunds], 'task both completed and refunded');
    if (failures.length > 0 && debits.length > 0 && refunds.length !== 1) {
      violate('REFUND_AFTER_FAILED_GENERATION', [...failures, ...refunds], `failed generation after a debit has ${refunds.length} refunds`);
    }
    const notifications = new Map<string, DomainEvent[]>();
    for (const sent of of('NotificationSent')) {
      const outcome = (sent as { outcome: string }).outcome;
      notifications.set(outcome, [...(notifications.get(outcome) ?? []), sent]);
    }
    for (const [outcome, sent] of notifications) {
      if (sent.length > 1) violate('ONE_NOTIFICATION_PER_OUTCOME', sent, `${sent.length} notifications for ${outcome}`);
    }

    // A task still in flight may hold a debit its outcome has yet to balance: only finished tasks count.
    if (terminal.length > 0) {
      const user = perUser.get(task.userId) ?? { debits: 0, refunds: 0, completed: 0 };
      user.debits += debits.length;
      user.refunds += refunds.length;
      user.completed += of('TaskCompleted').length;
      perUser.set(task.userId, user);
    }
  }
  for (const [userId, u] of perUser) {
    if (u.debits - u.refunds !== u.completed) {
      violations.push({
        invariant: 'USER_LEDGER_BALANCES',
        subject: userId,
        eventIds: [],
        message: `debits (${u.debits}) − refunds (${u.refunds}) ≠ completed tasks (${u.completed})`,
      });
    }
  }
  return { events: events.length, duplicates, tasks: tasks.size, inFlight, violations };
}
