import { JobStatus, jobStatuses } from '../../jobs/job-statuses';

/**
 * A cancel closes every job that is not over: waiting, scheduled, running — and even succeeded, for
 * the task is not charged and its report must not be kept (the tasks service cancels only a task
 * with no outcome: the success lost the race there). A job that failed or was refused is over.
 */
export function closedByCancel(status: JobStatus): boolean {
  return status !== 'failed' && status !== 'refused' && status !== 'cancelled';
}

/** The statuses a cancel closes, for the statement that closes them all at once. */
export const closedByCancelStatuses: JobStatus[] = jobStatuses.filter(closedByCancel);
