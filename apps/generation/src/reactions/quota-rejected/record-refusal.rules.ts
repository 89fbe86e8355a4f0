import type { JobStatus } from '../../jobs/job-statuses';

/** Quota's refusal closes a job still waiting for its go-ahead; any other (already closed by a cancel, say) stays. */
export function closedByRefusal(status: JobStatus): boolean {
  return status === 'awaiting';
}
