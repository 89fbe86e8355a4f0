import type { JobStatus } from '../../jobs/job-statuses';

/**
 * At the task's deadline: a debited job with no outcome is failed now (TIMED_OUT), so that quota
 * refunds it through the normal path; a job never debited is quota's to refuse (its refusal closes
 * the job); one that ended stays as it ended.
 */
export function fateAtDeadline(job: { status: JobStatus; debited: boolean }): 'fail' | 'leave' {
  const open = job.status === 'awaiting' || job.status === 'scheduled' || job.status === 'running';
  return open && job.debited ? 'fail' : 'leave';
}
