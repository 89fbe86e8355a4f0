import type { Knex } from 'knex';
import { attemptsOf, evolve, noFacts, stateOf } from '@app/task-state';
import type { TaskAudit } from './audit-invariants';

export interface ProjectionDifference {
  taskId: string;
  fromTopics: { state: string; attempts: number } | null;
  inDatabase: { state: string; attempts: number } | null;
}

/**
 * Rebuilds the tasks service's projection from the topics with its own state machine and compares
 * it with its table. Requests that were rejected never had a row, and are left out.
 */
export async function compareProjection(tasks: Map<string, TaskAudit>, db: Knex): Promise<ProjectionDifference[]> {
  const rows: Array<{ task_id: string; state: string; attempts: number }> = await db('tasks').select('task_id', 'state', 'attempts');
  const stored = new Map(rows.map((r) => [r.task_id, { state: r.state, attempts: r.attempts }]));
  const differences: ProjectionDifference[] = [];
  for (const task of tasks.values()) {
    if (task.outcome === 'TaskRejected') continue;
    const facts = task.events.reduce(evolve, noFacts);
    const rebuilt = { state: stateOf(facts), attempts: attemptsOf(facts) };
    const inDatabase = stored.get(task.taskId) ?? null;
    if (!inDatabase || inDatabase.state !== rebuilt.state || inDatabase.attempts !== rebuilt.attempts) {
      differences.push({ taskId: task.taskId, fromTopics: rebuilt, inDatabase });
    }
    stored.delete(task.taskId);
  }
  for (const [taskId, inDatabase] of stored) differences.push({ taskId, fromTopics: null, inDatabase });
  return differences;
}
