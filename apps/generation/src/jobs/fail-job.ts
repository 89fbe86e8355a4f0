import type { Knex } from 'knex';
import { EventOf, newEvent } from '@app/events';
import { Job } from './job-store';

/** A debited job with no outcome to fail, why, and the event that caused it. */
export interface JobStop {
  job: Job;
  reason: string;
  causationId: string;
}

/**
 * Fails debited jobs that have no outcome (TIMED_OUT), in the caller's transaction, with one
 * statement per table: the jobs and any attempt still open are closed. Gives their GenerationFailed,
 * for the caller to publish in the same transaction, so quota refunds each debit and the user is told
 * through the normal path. An attempt still running then finds its job failed and its result is
 * dropped. The caller cleans up after the commit (FailedJobCleanup).
 */
export async function failTimedOutJobs(trx: Knex.Transaction, stops: JobStop[], stoppedBy: string): Promise<Array<EventOf<'GenerationFailed'>>> {
  if (stops.length === 0) return [];
  const taskIds = stops.map(({ job }) => job.task_id);
  await trx('generation_jobs').whereIn('task_id', taskIds).update({ status: 'failed', lease_until: null, updated_at: trx.fn.now() });
  await trx('generation_attempts')
    .whereIn('task_id', taskIds)
    .whereNull('finished_at')
    .update({ finished_at: trx.fn.now(), outcome: 'failed', error_code: 'TIMED_OUT', error_message: `stopped by ${stoppedBy}` });
  return stops.map(({ job, reason, causationId }) =>
    newEvent(
      'GenerationFailed',
      { attempts: job.attempts, errorClass: 'TIMED_OUT', errorCode: 'TIMED_OUT', reason },
      { taskId: job.task_id, userId: job.user_id, correlationId: job.correlation_id, causationId },
      'generation',
    ),
  );
}
