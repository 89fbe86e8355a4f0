import type { Knex } from 'knex';
import { DomainEvent, EventOf, newEvent } from '@app/events';
import { decideCancel, evolve, reasonOf, stateOf, TaskFacts } from '@app/task-state';
import { applyToTask } from '../projection/apply-to-task';

/** A task as the cancel found it (and, once cancelled, left it). */
export interface CancelledTask {
  taskId: string;
  userId: string;
  state: string;
  reason: string | null;
  reportRef: string | null;
}

export type CancelDecision = { kind: 'already-ended'; task: CancelledTask } | { kind: 'cancelled'; task: CancelledTask };

export interface LockedTask {
  task_id: string;
  user_id: string;
  facts: TaskFacts;
  state: string;
  reason: string | null;
  report_ref: string | null;
}

/**
 * The task's row, locked in the caller's transaction: the projection's updates lock it too, so a
 * cancel and the event that brings the task's outcome are decided one after the other, never both
 * against the same past. Undefined for a task this service has not accepted.
 */
export async function lockTaskToCancel(trx: Knex.Transaction, taskId: string): Promise<LockedTask | undefined> {
  const row: LockedTask | undefined = await trx('tasks')
    .where({ task_id: taskId })
    .forUpdate()
    .first('task_id', 'user_id', 'facts', 'state', 'reason', 'report_ref');
  return row?.facts.requested ? row : undefined;
}

/**
 * Decides a cancel of a locked task (decideCancel) and, when it wins, publishes TaskCancelled and
 * applies it: the task ends CANCELLED and its outcome, TaskFailed{CANCELLED}, is published with it.
 * `causationId` is the outside request's, when there is one.
 */
export async function cancelTask(
  trx: Knex.Transaction,
  task: LockedTask,
  cancelledBy: string,
  causationId: string | null,
  publish: (event: DomainEvent) => Promise<void>,
): Promise<CancelDecision> {
  const asItStands = { taskId: task.task_id, userId: task.user_id, state: task.state, reason: task.reason, reportRef: task.report_ref };
  if (decideCancel(task.facts) === 'already-ended') return { kind: 'already-ended', task: asItStands };
  const origin = { taskId: task.task_id, userId: task.user_id, correlationId: await correlationOf(trx, task.task_id), causationId };
  const cancelled: EventOf<'TaskCancelled'> = newEvent('TaskCancelled', { cancelledBy }, origin, 'tasks');
  await publish(cancelled);
  await applyToTask(trx, cancelled, publish);
  const facts = evolve(task.facts, cancelled);
  return { kind: 'cancelled', task: { ...asItStands, state: stateOf(facts), reason: reasonOf(facts) } };
}

/** The flow the task's first event started: every event of one task shares it. */
async function correlationOf(trx: Knex.Transaction, taskId: string): Promise<string> {
  const first: { correlation_id: string } | undefined = await trx('task_timeline')
    .where({ task_id: taskId })
    .orderBy('id')
    .first(trx.raw(`payload->>'correlationId' as correlation_id`));
  if (!first) throw new Error(`task ${taskId} has no event in its timeline`);
  return first.correlation_id;
}
