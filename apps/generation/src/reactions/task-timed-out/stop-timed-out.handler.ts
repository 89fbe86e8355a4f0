import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { failTimedOutJobs } from '../../jobs/fail-job';
import { Job } from '../../jobs/job-store';
import type { JobStatus } from '../../jobs/job-statuses';
import { fateAtDeadline } from './stop-timed-out.rules';

/**
 * The tasks service gave the tasks up (TaskTimedOut): the jobs, locked in key order, loaded; each
 * one's fate decided (stop-timed-out.rules); those failed closed with their GenerationFailed, and
 * cleaned up after the commit.
 */
export async function stopTimedOut(
  events: Array<EventOf<'TaskTimedOut'>>,
  { trx, publish, afterCommit }: BatchContext,
  cleanUp: (job: Job) => Promise<void>,
): Promise<void> {
  const jobs: Array<Job & { status: JobStatus }> = await trx('generation_jobs')
    .whereIn(
      'task_id',
      events.map((event) => event.taskId),
    )
    .orderBy('task_id')
    .forUpdate();
  const eventOf = new Map(events.map((event) => [event.taskId.toLowerCase(), event]));
  const stoppable = jobs.filter((job) => fateAtDeadline({ status: job.status, debited: Boolean(job.debit_event_id) }) === 'fail');
  const stops = stoppable.map((job) => ({ job, reason: eventOf.get(job.task_id)!.reason, causationId: eventOf.get(job.task_id)!.eventId }));
  await publish(await failTimedOutJobs(trx, stops, 'the task deadline'));
  for (const job of stoppable) afterCommit(() => cleanUp(job));
}
