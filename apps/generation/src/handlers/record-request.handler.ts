import type { Knex } from 'knex';
import { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { failTimedOutJob } from '../jobs/fail-job';
import { Job } from '../jobs/job-store';

/**
 * Generation keeps its own copy of what a task asks for (from TaskAccepted) and of its go-ahead
 * (QuotaDebited) or refusal (QuotaRejected). Request and debit together make the job due, whichever
 * comes second; a refusal closes it, so it never waits for a debit that will not come.
 */
export async function recordRequest(event: EventOf<'TaskAccepted'>, { trx }: HandlerContext): Promise<void> {
  await upsertJob(trx, event, { report_type: event.reportType, input: event.input, request_event_id: event.eventId });
}

export async function recordDebit(event: EventOf<'QuotaDebited'>, { trx }: HandlerContext): Promise<void> {
  await upsertJob(trx, event, { debit_event_id: event.eventId });
}

export async function recordRefusal(event: EventOf<'QuotaRejected'>, { trx }: HandlerContext): Promise<void> {
  await trx('generation_jobs')
    .insert({ task_id: event.taskId, user_id: event.userId, correlation_id: event.correlationId, status: 'refused' })
    .onConflict('task_id')
    .ignore();
  await trx('generation_jobs').where({ task_id: event.taskId, status: 'awaiting' }).update({ status: 'refused', updated_at: trx.fn.now() });
}

async function upsertJob(
  trx: Knex.Transaction,
  event: { taskId: string; userId: string; correlationId: string },
  known: Record<string, unknown>,
): Promise<void> {
  await trx('generation_jobs')
    .insert({ task_id: event.taskId, user_id: event.userId, correlation_id: event.correlationId, status: 'awaiting', ...known })
    .onConflict('task_id')
    .merge(Object.keys(known));
  await trx('generation_jobs')
    .where({ task_id: event.taskId, status: 'awaiting' })
    .whereNotNull('request_event_id')
    .whereNotNull('debit_event_id')
    .update({ status: 'scheduled', next_attempt_at: trx.fn.now(), updated_at: trx.fn.now() });
}

/**
 * The tasks service gave the task up (TaskTimedOut): a debited job with no outcome is failed now, so
 * quota refunds it through the normal path. A job never debited is left to quota, which refuses it
 * (and the refusal closes the job); a finished one stays as it is.
 */
export async function stopTimedOut(event: EventOf<'TaskTimedOut'>, { trx }: HandlerContext): Promise<Job | undefined> {
  const job: Job | undefined = await trx('generation_jobs').where({ task_id: event.taskId }).forUpdate().first();
  if (!job || !job.debit_event_id || !['awaiting', 'scheduled', 'running'].includes((job as Job & { status: string }).status)) return undefined;
  await failTimedOutJob(trx, job, event.reason, event.eventId, 'the task deadline');
  return job;
}
