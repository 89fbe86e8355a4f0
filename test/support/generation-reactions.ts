import type { Knex } from 'knex';
import type { FailedJobCleanup } from '../../apps/generation/src/jobs/failed-job-cleanup';
import type { GenerationWorker } from '../../apps/generation/src/jobs/generation.worker';
import type { Job } from '../../apps/generation/src/jobs/job-store';
import { GenerationHandlers } from '../../apps/generation/src/generation.handlers';
import type { StoppedJob } from '../../apps/generation/src/reactions/task-cancelled/stop-cancelled.handler';
import { eventOf } from './reaction-world';

/** What generation's reactions asked of its worker and its clean-up (which run the model and touch files: not a reaction's to test). */
export interface AskedOfWorker {
  started: string[];
  stopped: StoppedJob[];
  cleanedUp: string[];
  filesRemoved: string[][];
}

/** Generation's handlers as it wires them, with a worker and a clean-up that record what they are asked. */
export function generationHandlers() {
  const asked: AskedOfWorker = { started: [], stopped: [], cleanedUp: [], filesRemoved: [] };
  const worker = {
    startInTransaction: async (_trx: Knex.Transaction, due: Job[]) => void asked.started.push(...due.map((job) => job.task_id)),
    stopCancelled: async (job: StoppedJob) => void asked.stopped.push(job),
    stopErased: async (taskIds: string[]) => (asked.filesRemoved.push(taskIds), taskIds.length),
  };
  const cleanup = { cleanUp: async (taskId: string) => void asked.cleanedUp.push(taskId) };
  const handlers = new GenerationHandlers(worker as unknown as GenerationWorker, cleanup as unknown as FailedJobCleanup).handlers();
  return { handlers, asked };
}

/** The tasks service's acceptance of a task, its input in clear or sealed under a key (`sealed:v1:<keyId>:…`). */
export const acceptedTask = (userId: string, input = '{"topic":"tides"}', taskId?: string) =>
  eventOf('TaskAccepted', { idempotencyKey: null, reportType: 'summary', input }, { userId, taskId, producer: 'tasks' });

export const debited = (userId: string, taskId: string) => eventOf('QuotaDebited', { amount: 1, balanceAfter: 4 }, { userId, taskId, producer: 'quota' });
