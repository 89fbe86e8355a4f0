import type { Logger } from '@nestjs/common';
import type { Knex } from 'knex';
import { setTimeout as sleep } from 'node:timers/promises';
import { degradations } from '@app/health';
import { exponentialDelay } from '@app/timing';
import { extendLease, Job } from './job-store';
import { isStorageOutage, ReportStore } from './report-store';

/** What waiting for a reports directory that takes no file needs of its worker. */
export interface ReportSaving {
  knex: Knex;
  reports: ReportStore;
  logger: Logger;
  /** How long an attempt's lease lasts. */
  leaseMs: () => number;
  /** False once the worker is stopping: its lease may then run out. */
  stillRunning: () => boolean;
}

/**
 * The report saved, however long the reports directory stays full or read-only: the model's answer
 * is kept in hand and the attempt's lease extended meanwhile, so the model is not called again for
 * a disk. Undefined when the attempt lost its job while it waited (cancelled, or the instance is
 * stopping and its lease may run out).
 */
export async function saveWaitingForSpace(saving: ReportSaving, job: Job, attempt: number, report: string): Promise<string | undefined> {
  for (let outages = 1; ; outages++) {
    try {
      const saved = await saving.reports.save(job.task_id, attempt, report);
      degradations.clear('reports');
      return saved;
    } catch (error) {
      if (!isStorageOutage(error)) throw error;
      const delay = exponentialDelay(outages, { initialMs: 500, maxMs: 15_000, jitter: 0.2 });
      degradations.report('reports', `the reports directory takes no file (${(error as NodeJS.ErrnoException).code}); attempts wait with their answers`);
      saving.logger.warn(`storing the report of ${job.task_id} failed: ${(error as Error).message}; trying again in ${delay} ms`);
      // The lease outlasts the wait, so that no claim takes the job for an interrupted attempt.
      if (!(await extendLease(saving.knex, job, attempt, delay + saving.leaseMs()))) return undefined;
      await sleep(delay);
      if (!saving.stillRunning()) return undefined;
    }
  }
}
