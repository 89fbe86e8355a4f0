import type { Knex } from 'knex';
import { terminalStates, taskStates } from '@app/task-state';
import { summary, TaskRow } from './task-queries';

/**
 * Whose tasks a search reads: one user's, or (an operator's) all users'. All users is its own shape,
 * never a string, so that no user id can mean it (a user named `everyone` once read every task).
 */
export type TaskOwners = { userId: string } | { allUsers: true };

/** What a search may be narrowed to: whose tasks, a state, a report type, an error code, a creation window. */
export interface TaskFilter {
  owners: TaskOwners;
  state?: string;
  reportType?: string;
  errorCode?: string;
  createdFrom?: Date;
  createdBefore?: Date;
}

/**
 * The error code a task ended with, as its TaskFailed says it (outcomeOf in @app/task-state), read
 * from its facts: the same expression as the index `tasks_by_error_code` (migration 008), so that
 * the planner uses it. Null for a task that has not failed.
 */
export const errorCodeSql = `(case when state = 'CANCELLED' then 'CANCELLED'
  when state = 'FAILED' then coalesce(facts->>'rejectionCode', 'INSUFFICIENT_QUOTA')
  when state in ('COMPENSATING', 'COMPENSATED') then coalesce(facts->>'failureCode', 'HANDLER_FAILED') end)`;

/**
 * Which index serves which filter (migration 008-task-search), each newest first by created_at:
 * a user — tasks_user_id_created_at_index; a state — tasks_by_state; a report type —
 * tasks_by_report_type; an error code — tasks_by_error_code; only a creation window (or nothing) —
 * tasks_by_created_at. Filters together use the most selective and check the rest on its rows.
 */
function narrowed(knex: Knex, filter: TaskFilter): Knex.QueryBuilder {
  const query = knex('tasks');
  if ('userId' in filter.owners) query.where({ user_id: filter.owners.userId });
  if (filter.state) query.where({ state: filter.state });
  if (filter.reportType) query.where({ report_type: filter.reportType });
  if (filter.errorCode) query.whereRaw(`${errorCodeSql} = ?`, [filter.errorCode]);
  if (filter.createdFrom) query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore) query.where('created_at', '<', filter.createdBefore);
  return query;
}

/** The query of one page of the tasks the filter matches, newest first (apart, for its plan to be read). */
export function searchQuery(knex: Knex, filter: TaskFilter, limit: number, offset: number) {
  return narrowed(knex, filter)
    .select<Array<TaskRow & { error_code: string | null }>>('*', knex.raw(`${errorCodeSql} as error_code`))
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'task_id' }])
    .limit(limit + 1)
    .offset(offset);
}

/** One page of the tasks the filter matches, newest first, each with the error code it failed with. */
export async function searchTasks(knex: Knex, filter: TaskFilter, limit: number, offset: number) {
  const rows = await searchQuery(knex, filter, limit, offset);
  const items = rows.slice(0, limit).map((row) => ({ ...summary(row), errorCode: row.error_code }));
  return { items, limit, offset, nextOffset: rows.length > limit ? offset + limit : null };
}

/** The ids of the unfinished tasks the filter matches, newest first, at most `limit`; `truncated` when there were more. */
export async function openTaskIds(knex: Knex, filter: TaskFilter, limit: number): Promise<{ taskIds: string[]; truncated: boolean }> {
  const ids: string[] = await narrowed(knex, filter)
    .whereNotIn('state', [...terminalStates])
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'task_id' }])
    .limit(limit + 1)
    .pluck('task_id');
  return { taskIds: ids.slice(0, limit), truncated: ids.length > limit };
}

/** How many tasks the filter matches in each state (every state named, 0 where none), and in all. */
export async function countTasks(knex: Knex, filter: TaskFilter): Promise<{ byState: Record<string, number>; total: number }> {
  const rows = await narrowed(knex, filter).select('state').count<Array<{ state: string; count: string }>>('* as count').groupBy('state');
  const byState = Object.fromEntries(taskStates.map((state) => [state, 0]));
  for (const { state, count } of rows) byState[state] = Number(count);
  return { byState, total: Object.values(byState).reduce((sum, n) => sum + n, 0) };
}
