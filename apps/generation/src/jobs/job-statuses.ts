/** Where a generation job stands (the check constraint on generation_jobs.status lists the same). */
export type JobStatus = 'awaiting' | 'scheduled' | 'running' | 'succeeded' | 'failed' | 'refused' | 'cancelled';

export const jobStatuses: readonly JobStatus[] = ['awaiting', 'scheduled', 'running', 'succeeded', 'failed', 'refused', 'cancelled'];
