import type { Knex } from 'knex';
import { traceparentOf } from '@app/tracing';

/** The job, after the merge, knows both its request and its debit and waits for neither: it is due now. */
const becomesDue = `generation_jobs.status = 'awaiting'
  and coalesce(excluded.request_event_id, generation_jobs.request_event_id) is not null
  and coalesce(excluded.debit_event_id, generation_jobs.debit_event_id) is not null`;

/**
 * Generation keeps its own copy of what a task asks for (from TaskAccepted) and of its go-ahead
 * (QuotaDebited). Request and debit together make the job due, whichever comes second; the job keeps the
 * trace context of that second event, under which its attempts will run. One statement; true when
 * the job became due with it.
 */
export async function upsertJob(
  trx: Knex.Transaction,
  event: { taskId: string; userId: string; correlationId: string },
  known: Record<string, unknown>,
): Promise<boolean> {
  const [job] = await trx('generation_jobs')
    .insert({ task_id: event.taskId, user_id: event.userId, correlation_id: event.correlationId, status: 'awaiting', ...known })
    .onConflict('task_id')
    .merge({
      ...Object.fromEntries(Object.keys(known).map((column) => [column, trx.raw('??', [`excluded.${column}`])])),
      status: trx.raw(`case when ${becomesDue} then 'scheduled' else generation_jobs.status end`),
      next_attempt_at: trx.raw(`case when ${becomesDue} then now() else generation_jobs.next_attempt_at end`),
      updated_at: trx.raw(`case when ${becomesDue} then now() else generation_jobs.updated_at end`),
      traceparent: trx.raw(`case when ${becomesDue} then ? else generation_jobs.traceparent end`, [traceparentOf() ?? null]),
    })
    .returning<Array<{ status: string }>>('status');
  return job.status === 'scheduled';
}
