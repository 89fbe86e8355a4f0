import type { Knex } from 'knex';
import { newEvent } from '@app/events';
import { addToOutbox } from '@app/messaging';
import { Job } from './job-store';

/**
 * Fails a debited job that has no outcome (TIMED_OUT), in the caller's transaction: the job and any
 * attempt still open are closed, and GenerationFailed goes out, so quota refunds the debit and the
 * user is told, through the normal path. An attempt still running then finds its job failed and its
 * result is dropped. The caller cleans up after the commit (FailedJobCleanup).
 */
export async function failTimedOutJob(trx: Knex.Transaction, job: Job, reason: string, causationId: string, stoppedBy: string): Promise<void> {
  await trx('generation_jobs').where({ task_id: job.task_id }).update({ status: 'failed', lease_until: null, updated_at: trx.fn.now() });
  await trx('generation_attempts')
    .where({ task_id: job.task_id })
    .whereNull('finished_at')
    .update({ finished_at: trx.fn.now(), outcome: 'failed', error_code: 'TIMED_OUT', error_message: `stopped by ${stoppedBy}` });
  const origin = { taskId: job.task_id, userId: job.user_id, correlationId: job.correlation_id, causationId };
  await addToOutbox(
    trx,
    newEvent('GenerationFailed', { attempts: job.attempts, errorClass: 'TIMED_OUT', errorCode: 'TIMED_OUT', reason }, origin, 'generation'),
  );
}
