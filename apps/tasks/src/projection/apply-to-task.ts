import { afterCommit, inOneStatement, Write } from '@app/database';
import { taskEndToEndSeconds } from '@app/metrics';
import type { Knex } from 'knex';
import { DomainEvent, TaskAccepted } from '@app/events';
import { outbox, OutboxWrite } from '@app/messaging';
import { noFacts, TaskFacts } from '@app/task-state';
import { byNamespace, partnerSlots } from '../partners/partner-limits';
import { openTaskSlotsReleased, userSlots } from '../submit/user-limits';
import { project, ProjectedTask, Projection, TaskChange } from './projection.rules';

/** Writes outcome events to the outbox, or gives the insert that does for applyToTasks to run with its own writes. */
export type OutcomesOutbox = (events: DomainEvent[]) => Promise<OutboxWrite | undefined>;

interface TaskRow {
  task_id: string;
  user_id: string;
  facts: TaskFacts;
  outcome_event_id: string | null;
  created_at: Date;
}

/** applyToTasks for one event, published one at a time. */
export function applyToTask(trx: Knex.Transaction, event: DomainEvent, publish: (event: DomainEvent) => Promise<void>): Promise<void> {
  return applyToTasks(trx, [event], async (events) => {
    for (const outcome of events) await publish(outcome);
    return undefined;
  });
}

/**
 * Applies events to their tasks' projections, in the caller's transaction: each event joins its
 * task's timeline (once, by eventId), the facts and state move on as projection.rules decides, and a
 * task that first reaches a terminal state gets its outcome (TaskCompleted or TaskFailed) published,
 * exactly once. The tasks' rows are locked in key order, so events of one task arriving on several
 * topics at once apply one batch after the other, and two batches never wait on each other in a
 * circle. Three statements whatever the number of events: the rows locked, the timeline, and the
 * rest (the changes, the outcomes' events and timeline, the users' slots) together.
 */
export async function applyToTasks(trx: Knex.Transaction, events: DomainEvent[], outcomesOutbox: OutcomesOutbox): Promise<void> {
  if (events.length === 0) return;
  const rows = await lockedTasks(trx, events);
  const fresh = await appendToTimeline(trx, events);
  const { changes, outcomes } = project(
    projectionsOf(rows),
    events.filter((event) => fresh.has(event.eventId.toLowerCase())),
  );
  const writes: Record<string, Write | undefined> = { changed: tasksUpdated(trx, changes) };
  if (outcomes.length > 0) {
    const outcomeEvents = outcomes.map(({ outcome }) => outcome);
    writes.outcomes = (await outcomesOutbox(outcomeEvents))?.insert;
    writes.outcomes_timeline = trx('task_timeline').insert(outcomeEvents.map(timelineRowOf)).onConflict('event_id').ignore();
    const freed = slotsFreedBy(changes, outcomes, rows);
    writes.slots = openTaskSlotsReleased(trx, userSlots, freed);
    writes.partner_slots = openTaskSlotsReleased(trx, partnerSlots, byNamespace(freed));
    const createdAt = new Map(rows.map((row) => [row.task_id, new Date(row.created_at).getTime()]));
    afterCommit(trx, () => {
      for (const { outcome } of outcomes) {
        const seconds = (outcome.occurredAt - (createdAt.get(outcome.taskId.toLowerCase()) ?? outcome.occurredAt)) / 1000;
        taskEndToEndSeconds.observe({ outcome: outcome.eventType }, seconds);
      }
    });
  }
  await inOneStatement(trx, writes);
}

/** Per user, the tasks that ended now and held an open-task slot: those accepted (requested). */
function slotsFreedBy(changes: TaskChange[], outcomes: Projection['outcomes'], rows: TaskRow[]): Map<string, number> {
  const ended = new Set(outcomes.map(({ outcome }) => outcome.taskId.toLowerCase()));
  const freed = new Map<string, number>();
  for (const change of changes) {
    const user = rows.find((row) => row.task_id === change.taskId)?.user_id;
    if (user !== undefined && ended.has(change.taskId) && change.facts.requested) freed.set(user, (freed.get(user) ?? 0) + 1);
  }
  return freed;
}

/**
 * A task accepted by POST /tasks, new by construction (its id was just made): its row, as the
 * acceptance projects it, its timeline's first event, the acceptance's outbox row and the open-task
 * slots it takes (`slots`, each a statement that returns a row when taken: its user's, its
 * namespace's), written by one statement. The names of the slots not taken come back: the caller
 * then rolls back, and nothing of it stays. The slots' rows are locked last, by the statement just
 * before the commit, so one user's submissions wait on each other only for a commit.
 */
export async function recordNewTask(
  trx: Knex.Transaction,
  accepted: TaskAccepted,
  traceparent: string,
  slots: Record<string, Knex.Raw<{ rows: unknown[] }>>,
): Promise<string[]> {
  const { changes, outcomes } = project(new Map([[accepted.taskId, { taskId: accepted.taskId, facts: noFacts, outcomeEventId: null }]]), [accepted]);
  if (outcomes.length > 0 || changes.length !== 1) throw new Error(`the acceptance of ${accepted.taskId} did not project to one open task`);
  const [task] = changes;
  let statement = trx
    .with(
      'task',
      trx('tasks').insert({
        task_id: accepted.taskId,
        user_id: accepted.userId,
        state: task.state,
        facts: JSON.stringify(task.facts),
        reason: task.reason,
        attempts: task.attempts,
        report_ref: task.reportRef,
        report_type: accepted.reportType,
        input: accepted.input,
        idempotency_key: accepted.idempotencyKey,
      }),
    )
    .with('timeline', trx('task_timeline').insert(timelineRowOf(accepted)))
    .with('outbox_row', trx('outbox').insert(outbox.rowOf(accepted, traceparent)));
  const names = Object.keys(slots);
  for (const name of names) statement = statement.with(`slot_${name}`, slots[name]);
  const [taken] = await statement.select<Array<Record<string, string>>>(
    names.map((name) => trx.raw('(select count(*) from ??) as ??', [`slot_${name}`, name])),
  );
  outbox.wakeRelayOnCommit(trx);
  return names.filter((name) => Number(taken[name]) !== 1);
}

function projectionsOf(rows: TaskRow[]): Map<string, ProjectedTask> {
  return new Map(rows.map((row) => [row.task_id, { taskId: row.task_id, facts: row.facts, outcomeEventId: row.outcome_event_id }]));
}

/**
 * The events' tasks' rows, locked in key order; a task first heard of here (events of one task come
 * on several topics, in any order) is made first. One query in the usual cases: a request or an
 * acceptance, a task's first events, is tried as an insert first (a row this transaction made is
 * its own until it commits); any other event as a lock.
 */
async function lockedTasks(trx: Knex.Transaction, events: DomainEvent[]): Promise<TaskRow[]> {
  const firstOf = new Map<string, DomainEvent>();
  for (const event of events) if (!firstOf.has(event.taskId.toLowerCase())) firstOf.set(event.taskId.toLowerCase(), event);
  const ids = [...firstOf.keys()].sort();
  const lock = (some: string[]) =>
    trx('tasks').whereIn('task_id', some).orderBy('task_id').forUpdate().select<TaskRow[]>('task_id', 'user_id', 'facts', 'outcome_event_id', 'created_at');
  const create = (some: string[]) =>
    trx('tasks')
      .insert(some.map((id) => ({ task_id: id, user_id: firstOf.get(id)!.userId, state: 'QUEUED', facts: JSON.stringify(noFacts) })))
      .onConflict('task_id')
      .ignore()
      .returning<TaskRow[]>(['task_id', 'user_id', 'facts', 'outcome_event_id', 'created_at']);
  const missingFrom = (rows: TaskRow[]) => ids.filter((id) => !rows.some((row) => row.task_id === id));
  if (events.every((event) => event.eventType === 'TaskRequested' || event.eventType === 'TaskAccepted')) {
    const made = await create(ids);
    const existing = missingFrom(made);
    return existing.length === 0 ? made : [...made, ...(await lock(existing))];
  }
  const rows = await lock(ids);
  const missing = missingFrom(rows);
  if (missing.length === 0) return rows;
  await create(missing);
  return [...rows, ...(await lock(missing))];
}

/** The ids (in lower case) of the events that joined a timeline now; the others were there already. */
async function appendToTimeline(trx: Knex.Transaction, events: DomainEvent[]): Promise<Set<string>> {
  const inserted: Array<{ event_id: string }> = await trx('task_timeline')
    .insert(events.map(timelineRowOf))
    .onConflict('event_id')
    .ignore()
    .returning('event_id');
  return new Set(inserted.map((row) => row.event_id));
}

function timelineRowOf(event: DomainEvent) {
  return {
    task_id: event.taskId,
    event_id: event.eventId,
    event_type: event.eventType,
    occurred_at: new Date(event.occurredAt),
    producer: event.producer,
    payload: JSON.stringify(event),
  };
}

/** The statement that writes every changed task's row; undefined for none. */
function tasksUpdated(trx: Knex.Transaction, changes: TaskChange[]): Knex.Raw | undefined {
  if (changes.length === 0) return undefined;
  const records = changes.map((change) => ({
    task_id: change.taskId,
    facts: change.facts,
    state: change.state,
    reason: change.reason,
    attempts: change.attempts,
    report_ref: change.reportRef,
    outcome_event_id: change.outcomeEventId,
    has_request: change.request !== undefined,
    report_type: change.request?.reportType ?? null,
    input: change.request?.input ?? null,
    idempotency_key: change.request?.idempotencyKey ?? null,
  }));
  return trx.raw(
    `update tasks as t set facts = r.facts, state = r.state, reason = r.reason, attempts = r.attempts, report_ref = r.report_ref,
       outcome_event_id = r.outcome_event_id,
       report_type = case when r.has_request then r.report_type else t.report_type end,
       input = case when r.has_request then r.input else t.input end,
       idempotency_key = case when r.has_request then r.idempotency_key else t.idempotency_key end,
       updated_at = now()
     from jsonb_to_recordset(?::jsonb) as r(task_id uuid, facts jsonb, state text, reason text, attempts integer, report_ref text,
       outcome_event_id uuid, has_request boolean, report_type text, input text, idempotency_key text)
     where t.task_id = r.task_id`,
    [JSON.stringify(records)],
  );
}
