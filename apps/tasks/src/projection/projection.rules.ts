import { causedBy, DomainEvent, TaskCompleted, TaskFailed } from '@app/events';
import { attemptsOf, evolve, outcomeOf, reasonOf, stateOf, TaskFacts, TaskState } from '@app/task-state';

/** A task's projection as it stands before the batch. */
export interface ProjectedTask {
  taskId: string;
  facts: TaskFacts;
  outcomeEventId: string | null;
}

/** A task's projection after the batch: one row to write. */
export interface TaskChange {
  taskId: string;
  facts: TaskFacts;
  state: TaskState;
  reason: string | null;
  attempts: number;
  reportRef: string | null;
  outcomeEventId: string | null;
  /** What the request asked, when the batch holds the task's request or acceptance. */
  request?: { reportType: string; input: string; idempotencyKey: string | null };
}

export interface Projection {
  changes: TaskChange[];
  /** TaskCompleted or TaskFailed, for each task the batch brought to its end for the first time. */
  outcomes: Array<{ outcome: TaskCompleted | TaskFailed; cause: DomainEvent }>;
}

/**
 * Where a batch of new events leaves the tasks they are about, decided from the projections alone:
 * each task's events in the order given (offset order), the facts and state moved on by each, and
 * the outcome published once, by the first event that makes the task terminal.
 */
export function project(tasks: ReadonlyMap<string, ProjectedTask>, events: readonly DomainEvent[]): Projection {
  const changes = new Map<string, TaskChange>();
  const outcomes: Projection['outcomes'] = [];
  for (const event of events) {
    const key = event.taskId.toLowerCase();
    const before = changes.get(key) ?? tasks.get(key);
    if (!before) throw new Error(`task ${event.taskId} is not among the tasks read for the batch`);
    const facts = evolve(before.facts, event);
    const change: TaskChange = {
      taskId: before.taskId,
      facts,
      state: stateOf(facts),
      reason: reasonOf(facts),
      attempts: attemptsOf(facts),
      reportRef: facts.reportRef ?? null,
      outcomeEventId: before.outcomeEventId,
      request: (before as Partial<TaskChange>).request,
    };
    if (event.eventType === 'TaskRequested' || event.eventType === 'TaskAccepted') {
      change.request = { reportType: event.reportType, input: event.input, idempotencyKey: event.idempotencyKey };
    }
    const outcome = outcomeOf(facts);
    if (outcome && !change.outcomeEventId) {
      const { eventType, ...body } = outcome;
      const terminal = causedBy(event, eventType, body as never, 'tasks') as TaskCompleted | TaskFailed;
      change.outcomeEventId = terminal.eventId;
      outcomes.push({ outcome: terminal, cause: event });
    }
    changes.set(key, change);
  }
  return { changes: [...changes.values()], outcomes };
}
