import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Knex } from 'knex';
import { KNEX } from '@app/database';
import { WorkerLoop } from '@app/timing';
import { traceparentFor, traceparentOf } from '@app/tracing';
import { GENERATION_CONFIG, GenerationConfig } from '../generation.config';
import { outbox } from '@app/messaging';
import { failTimedOutJobs } from './fail-job';
import { Job } from './job-store';
import { FailedJobCleanup } from './failed-job-cleanup';

/**
 * Nothing may stay stuck with the user's quota taken: a debited job with no outcome past the
 * deadline is failed through the normal path (GenerationFailed{TIMED_OUT}), so quota refunds it and
 * the user is told. An attempt still running then finds its job failed and its result is dropped.
 */
@Injectable()
export class Reconciler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('reconciler');
  private readonly loop: WorkerLoop;
  reconciled = 0;

  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(GENERATION_CONFIG) private readonly config: GenerationConfig,
    private readonly cleanup: FailedJobCleanup,
  ) {
    this.loop = new WorkerLoop(() => this.round(), { name: 'reconciler', logger: new Logger('reconciler'), pollIntervalMs: config.reconcileIntervalMs });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  private async round(): Promise<boolean> {
    const deadline = this.config.reconcileDeadlineMs;
    const overdue = await this.knex.transaction(async (trx) => {
      const jobs: Job[] = await trx('generation_jobs')
        .whereIn('status', ['awaiting', 'scheduled', 'running'])
        .whereNotNull('debit_event_id')
        .where('created_at', '<', new Date(Date.now() - deadline))
        .limit(50)
        .forUpdate()
        .skipLocked();
      const reason = `no outcome within ${Math.round(deadline / 1000)} s of the debit`;
      const failed = await failTimedOutJobs(
        trx,
        jobs.map((job) => ({ job, reason, causationId: job.debit_event_id })),
        'the reconciler',
      );
      await outbox.addAll(
        trx,
        failed.map((event) => ({ event, traceparent: traceparentOf() ?? traceparentFor(event.correlationId) })),
      );
      return jobs;
    });
    for (const job of overdue) {
      this.reconciled++;
      this.logger.warn(`task ${job.task_id} had no outcome past the deadline: failed as TIMED_OUT (${this.reconciled} so far)`);
      await this.cleanup.cleanUp(job.task_id, job.attempts);
    }
    return overdue.length === 50;
  }
}
