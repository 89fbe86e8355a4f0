import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { closedByCancelStatuses } from './stop-cancelled.rules';

/** A job the cancel stops: its model call aborted where it runs, its report (if one came in time) removed. */
export interface StoppedJob {
  taskId: string;
  hadReport: boolean;
}

/**
 * The tasks service cancelled the tasks (TaskCancelled): every job of theirs the cancel closes
 * (stop-cancelled.rules) is closed as `cancelled`, by one statement, and its open attempt with it. A job not heard of yet is recorded closed, so that its
 * request and debit, if they come later, start nothing. Quota refunds on the same event: no
 * GenerationFailed is published. `stop` runs after the commit, for each job closed now.
 */
export async function stopCancelled(
  events: Array<EventOf<'TaskCancelled'>>,
  { trx, afterCommit }: BatchContext,
  stop: (job: StoppedJob) => Promise<void>,
): Promise<void> {
  const taskIds = events.map((event) => event.taskId);
  await trx('generation_jobs')
    .insert(events.map((event) => ({ task_id: event.taskId, user_id: event.userId, correlation_id: event.correlationId, status: 'cancelled' })))
    .onConflict('task_id')
    .ignore();
  const { rows: closed } = await trx.raw<{ rows: Array<{ task_id: string; report_ref: string | null }> }>(
    `update generation_jobs as j set status = 'cancelled', lease_until = null, updated_at = now()
       from (select task_id, status from generation_jobs where task_id = any(?::uuid[]) and status = any(?::text[])
             order by task_id for update) as before
      where j.task_id = before.task_id
     returning j.task_id, case when before.status = 'succeeded' then j.report_ref end as report_ref`,
    [taskIds, closedByCancelStatuses],
  );
  if (closed.length === 0) return;
  await trx('generation_attempts')
    .whereIn(
      'task_id',
      closed.map((job) => job.task_id),
    )
    .whereNull('finished_at')
    .update({ finished_at: trx.fn.now(), outcome: 'cancelled', error_code: 'CANCELLED', error_message: 'the task was cancelled' });
  for (const job of closed) afterCommit(() => stop({ taskId: job.task_id, hadReport: job.report_ref !== null }));
}
