import { afterCommit } from '@app/database';
import { taskEndToEndSeconds } from '@app/metrics';
import type { Knex } from 'knex';
import { causedBy, DomainEvent, TaskAccepted, TaskRequested } from '@app/events';
import { attemptsOf, evolve, noFacts, outcomeOf, reasonOf, stateOf, TaskFacts } from '@app/task-state';

type Publish = (event: DomainEvent) => Promise<void>;

interface TaskRow {
  task_id: string;
  facts: TaskFacts;
  outcome_event_id: string | null;
  created_at: Date;
}

/**
 * Applies one event to its task's projection, in the caller's transaction: the event joins the
 * timeline (once, by eventId), the facts and state move on, and when the task first reaches a
 * terminal state its outcome (TaskCompleted or TaskFailed) is published, exactly once. The task row
 * is locked, so events of one task arriving together on several topics apply one at a time.
 */
export async function applyToTask(trx: Knex.Transaction, event: DomainEvent, publish: Publish): Promise<void> {
  const task = await lockedTask(trx, event);
  if (!(await appendToTimeline(trx, event))) return; // already applied

  const facts = evolve(task.facts, event);
  const changes: Record<string, unknown> = {
    facts: JSON.stringify(facts),
    state: stateOf(facts),
    reason: reasonOf(facts),
    attempts: attemptsOf(facts),
    report_ref: facts.reportRef,
    updated_at: trx.fn.now(),
  };
  if (event.eventType === 'TaskRequested' || event.eventType === 'TaskAccepted') Object.assign(changes, requestDetails(event));

  const outcome = outcomeOf(facts);
  if (outcome && !task.outcome_event_id) {
    const { eventType, ...body } = outcome;
    const terminal = causedBy(event, eventType, body as never, 'tasks');
    await publish(terminal);
    await appendToTimeline(trx, terminal);
    changes.outcome_event_id = terminal.eventId;
    const seconds = (terminal.occurredAt - new Date(task.created_at).getTime()) / 1000;
    afterCommit(trx, () => taskEndToEndSeconds.observe({ outcome: eventType }, seconds));
  }
  await trx('tasks').where({ task_id: event.taskId }).update(changes);
}

/**
 * The task's row, locked; made first when this is the first event of the task heard of. One query
 * in the usual cases: a request or an acceptance, a task's first events, is tried as an insert
 * first (a row this transaction made is its own until it commits); any other event as a lock.
 */
async function lockedTask(trx: Knex.Transaction, event: DomainEvent): Promise<TaskRow> {
  const lock = () => trx('tasks').where({ task_id: event.taskId }).forUpdate().first<TaskRow | undefined>();
  const create = () =>
    trx('tasks')
      .insert({ task_id: event.taskId, user_id: event.userId, state: 'QUEUED', facts: JSON.stringify(noFacts) })
      .onConflict('task_id')
      .ignore()
      .returning<TaskRow[]>(['task_id', 'facts', 'outcome_event_id', 'created_at']);
  if (event.eventType === 'TaskRequested' || event.eventType === 'TaskAccepted') {
    const [made] = await create();
    if (made) return made;
    return (await lock())!;
  }
  const existing = await lock();
  if (existing) return existing;
  await create();
  return (await lock())!;
}

function requestDetails(event: TaskRequested | TaskAccepted) {
  return { report_type: event.reportType, input: event.input, idempotency_key: event.idempotencyKey };
}

async function appendToTimeline(trx: Knex.Transaction, event: DomainEvent): Promise<boolean> {
  const inserted = await trx('task_timeline')
    .insert({
      task_id: event.taskId,
      event_id: event.eventId,
      event_type: event.eventType,
      occurred_at: new Date(event.occurredAt),
      producer: event.producer,
      payload: JSON.stringify(event),
    })
    .onConflict('event_id')
    .ignore()
    .returning('event_id');
  return inserted.length === 1;
}
