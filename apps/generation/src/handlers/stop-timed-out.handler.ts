import type { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { failTimedOutJob } from '../jobs/fail-job';
import { Job } from '../jobs/job-store';

/**
 * The tasks service gave the task up (TaskTimedOut): a debited job with no outcome is failed now, so
 * quota refunds it through the normal path. A job never debited is left to quota, which refuses it
 * (and the refusal closes the job); a finished one stays as it is.
 */
export async function stopTimedOut(event: EventOf<'TaskTimedOut'>, { trx, afterCommit }: HandlerContext, cleanUp: (job: Job) => Promise<void>): Promise<void> {
  const job: Job | undefined = await trx('generation_jobs').where({ task_id: event.taskId }).forUpdate().first();
  if (!job || !job.debit_event_id || !['awaiting', 'scheduled', 'running'].includes((job as Job & { status: string }).status)) return;
  await failTimedOutJob(trx, job, event.reason, event.eventId, 'the task deadline');
  afterCommit(() => cleanUp(job));
}
