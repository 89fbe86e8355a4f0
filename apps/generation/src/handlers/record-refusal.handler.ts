import type { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';

/** Quota refused the task: its job is closed, so it never waits for a debit that will not come. */
export async function recordRefusal(event: EventOf<'QuotaRejected'>, { trx }: HandlerContext): Promise<void> {
  await trx('generation_jobs')
    .insert({ task_id: event.taskId, user_id: event.userId, correlation_id: event.correlationId, status: 'refused' })
    .onConflict('task_id')
    .ignore();
  await trx('generation_jobs').where({ task_id: event.taskId, status: 'awaiting' }).update({ status: 'refused', updated_at: trx.fn.now() });
}
