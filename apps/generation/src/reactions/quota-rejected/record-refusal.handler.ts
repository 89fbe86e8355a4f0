import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { jobStatuses } from '../../jobs/job-statuses';
import { closedByRefusal } from './record-refusal.rules';

/** Quota refused the tasks: their jobs are closed, so they never wait for a debit that will not come. */
export async function recordRefusals(events: Array<EventOf<'QuotaRejected'>>, { trx }: BatchContext): Promise<void> {
  await trx('generation_jobs')
    .insert(events.map((event) => ({ task_id: event.taskId, user_id: event.userId, correlation_id: event.correlationId, status: 'refused' })))
    .onConflict('task_id')
    .ignore();
  await trx('generation_jobs')
    .whereIn(
      'task_id',
      events.map((event) => event.taskId),
    )
    .whereIn('status', jobStatuses.filter(closedByRefusal))
    .update({ status: 'refused', updated_at: trx.fn.now() });
}
