import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { failTimedOutJobs } from '../../jobs/fail-job';
import { Job } from '../../jobs/job-store';

/**
 * The tasks service gave the tasks up (TaskTimedOut): a debited job with no outcome is failed now, so
 * quota refunds it through the normal path. A job never debited is left to quota, which refuses it
 * (and the refusal closes the job); a finished one stays as it is. The jobs are locked in key order.
 */
export async function stopTimedOut(
  events: Array<EventOf<'TaskTimedOut'>>,
  { trx, publish, afterCommit }: BatchContext,
  cleanUp: (job: Job) => Promise<void>,
): Promise<void> {
  const jobs: Array<Job & { status: string }> = await trx('generation_jobs')
    .whereIn(
      'task_id',
      events.map((event) => event.taskId),
    )
    .orderBy('task_id')
    .forUpdate();
  const eventOf = new Map(events.map((event) => [event.taskId.toLowerCase(), event]));
  const stoppable = jobs.filter((job) => job.debit_event_id && ['awaiting', 'scheduled', 'running'].includes(job.status));
  const stops = stoppable.map((job) => ({ job, reason: eventOf.get(job.task_id)!.reason, causationId: eventOf.get(job.task_id)!.eventId }));
  await publish(await failTimedOutJobs(trx, stops, 'the task deadline'));
  for (const job of stoppable) afterCommit(() => cleanUp(job));
}
