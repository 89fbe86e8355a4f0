import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Knex } from 'knex';
import { afterCommit, KNEX } from '@app/database';
import { WorkerLoop } from '@app/timing';
import { inSpan, traceparentFor } from '@app/tracing';
import { ModelClient } from '../model/model.client';
import { ModelOutcome } from '../model/model-outcome.rules';
import { GENERATION_CONFIG, GenerationConfig } from '../generation.config';
import { decideAfterAttempt } from './attempt-outcome.rules';
import { cancelledAmong, claimDueJobs, Job, jobStatusOf, recordAttempt, startAttempts } from './job-store';
import { recoverInterruptedAttempts } from './interrupted-attempts';
import type { SlotPolicy } from './fair-shares';
import { ReportSaving, saveWaitingForSpace } from './report-saving';
import type { StoppedJob } from '../reactions/task-cancelled/stop-cancelled.handler';
import { FailedJobCleanup } from './failed-job-cleanup';
import { ReportStore } from './report-store';
import { jobsNoLongerWaitingForKeys } from './upsert-job';
import { openJobInput } from './job-input';
import { PERSONAL_DATA, PersonalData, sealText } from '@app/personal-data';

/**
 * Runs due generation attempts from the durable schedule in PostgreSQL: claims them, calls the
 * model outside any transaction, stores the report, and records the outcome with its event. Woken
 * at once when a job becomes due in this process; polls otherwise.
 */
@Injectable()
export class GenerationWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('generation-worker');
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loop: WorkerLoop;
  private lastRecovery = 0;
  /** A due job was left for want of a slot (this instance's, or its user's share): a finishing attempt looks again. */
  private jobsWaitForSlots = false;
  /** Slots held for attempts started in a transaction that has not committed yet. */
  private reserved = 0;
  /** The model calls running in this instance, by task: a cancel aborts them. */
  private readonly calls = new Map<string, AbortController>();
  private readonly saving: ReportSaving;

  constructor(
    @Inject(KNEX) private readonly knex: Knex,
    @Inject(GENERATION_CONFIG) private readonly config: GenerationConfig,
    private readonly model: ModelClient,
    private readonly reports: ReportStore,
    private readonly cleanup: FailedJobCleanup,
    @Inject(PERSONAL_DATA) private readonly personal: PersonalData,
  ) {
    this.saving = { knex, reports, logger: this.logger, leaseMs: () => this.leaseMs, stillRunning: () => this.loop.running };
    this.loop = new WorkerLoop(() => this.round(), {
      name: 'generation-worker',
      logger: new Logger('generation-worker'),
      pollIntervalMs: config.pollIntervalMs,
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  /** Lets the attempts in flight finish (a model call ends by its timeout at the latest). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await Promise.all(this.inFlight);
  }

  wake(): void {
    this.loop.wake();
  }

  /**
   * Jobs that just became due in `trx` (which holds their rows) and that this instance has slots and
   * their users' shares have room for start their attempts in it, and run once it commits: no
   * wake-up, no claim of their own. The others wait for a round, which the commit wakes. Slots are
   * held meanwhile, and given back if `trx` rolls back.
   */
  async startInTransaction(trx: Knex.Transaction, due: Job[]): Promise<void> {
    if (due.length === 0) return;
    const free = this.loop.running ? Math.max(0, this.config.concurrency - this.inFlight.size - this.reserved) : 0;
    const held = due.slice(0, free);
    this.reserved += held.length;
    let started: Job[] = [];
    try {
      started = await startAttempts(trx, held, this.leaseMs, this.slots(free));
    } finally {
      this.reserved -= held.length - started.length;
    }
    if (started.length < due.length) afterCommit(trx, () => this.loop.wake());
    if (started.length === 0) return;
    trx.executionPromise.then(
      () => {
        this.reserved -= started.length;
        for (const job of started) this.track(this.attempt(job));
      },
      () => (this.reserved -= started.length),
    );
  }

  private slots(free: number): SlotPolicy {
    return { defaultShare: this.config.maxPerUser, free, keptForNewcomers: this.config.keptForNewcomers };
  }

  /** Long enough for a model call to end by its timeout and be recorded; a lease past it means the attempt died. */
  private get leaseMs(): number {
    return Math.round(this.config.modelTimeoutMs * 1.5) + 1000;
  }

  /**
   * Starts what is due, up to the concurrency; runs again at once while more may be due and room is
   * left. A finished attempt wakes it when due jobs were left waiting for a slot (otherwise a claim
   * would find nothing: a job made due wakes it itself). Interrupted attempts are looked for once per
   * poll interval, not on every wake (a lease outlives a model call by far).
   */
  private async round(): Promise<boolean> {
    if (Date.now() - this.lastRecovery >= this.config.pollIntervalMs) {
      await recoverInterruptedAttempts(this.knex, this.config, this.logger);
      await this.abortCancelledElsewhere();
      // A job's debit and its key, committed at once by two transactions, can each miss the other:
      // the job then waits with nothing left to wait for. Made due here, once per poll interval.
      await jobsNoLongerWaitingForKeys(this.knex);
      this.lastRecovery = Date.now();
    }
    const { concurrency } = this.config;
    const free = concurrency - this.inFlight.size - this.reserved;
    if (free <= 0) {
      this.jobsWaitForSlots = true;
      return false;
    }
    const { jobs, more, waiting } = await claimDueJobs(this.knex, this.leaseMs, this.slots(free));
    this.jobsWaitForSlots = waiting;
    for (const job of jobs) this.track(this.attempt(job));
    return more && this.inFlight.size < concurrency;
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => {
      this.inFlight.delete(work);
      if (this.jobsWaitForSlots) this.loop.wake(); // room for another attempt
    });
  }

  /** One attempt is one span of the task's trace: the model call and the recorded outcome sit inside it. */
  private attempt(job: Job): Promise<void> {
    const facts = { taskId: job.task_id, attempt: job.attempts };
    return inSpan('generation attempt', { parent: job.traceparent ?? traceparentFor(job.correlation_id), facts }, () => this.runAttempt(job));
  }

  private async runAttempt(job: Job): Promise<void> {
    const attempt = job.attempts;
    const opened = await openJobInput(this.knex, this.personal, job);
    let outcome: ModelOutcome;
    if ('failure' in opened) {
      outcome = opened.failure;
    } else {
      const call = new AbortController();
      this.calls.set(job.task_id, call);
      try {
        outcome = await this.model.generate({ taskId: job.task_id, attempt, reportType: job.report_type, input: opened.input }, call.signal);
      } finally {
        this.calls.delete(job.task_id);
      }
    }
    let reportRef: string | undefined;
    if (outcome.ok && !('failure' in opened)) {
      try {
        // Sealed under the key the input was (a report may quote it); an input written before sealing has none.
        const report = opened.dataKey ? sealText(outcome.content, opened.dataKey) : outcome.content;
        reportRef = await saveWaitingForSpace(this.saving, job, attempt, report);
        if (reportRef === undefined) return; // the attempt lost its job meanwhile: its answer is not kept
      } catch (error) {
        outcome = { ok: false, code: 'HANDLER_FAILED', retriable: true, message: `storing the report failed: ${(error as Error).message}` };
      }
    }
    await this.finish(job, attempt, outcome, reportRef).catch((error) =>
      // The lease runs out and the attempt is retried: the model sees the same Idempotency-Key.
      this.logger.error(`recording attempt ${attempt} of ${job.task_id} failed: ${(error as Error).message}`),
    );
  }

  private async finish(job: Job, attempt: number, outcome: ModelOutcome, reportRef?: string): Promise<void> {
    const decision = decideAfterAttempt(outcome, attempt, this.config.retryDelaysMs, this.config.retryJitter);
    const recorded = await recordAttempt(this.knex, job, attempt, outcome, decision, reportRef);
    if (recorded && !outcome.ok) {
      const next = decision.kind === 'retry' ? `retrying in ${decision.delayMs} ms` : 'giving up';
      this.logger.warn(`attempt ${attempt} failed (${outcome.code}: ${outcome.message}); ${next}`);
    }
    if (recorded && decision.kind === 'failed') {
      await this.cleanup.cleanUp(job.task_id, attempt);
    }
    // An answer that came after its task was cancelled is not kept (a lease run out is another story:
    // the next attempt writes its own report).
    if (!recorded && reportRef && (await jobStatusOf(this.knex, job.task_id)) === 'cancelled') await this.reports.remove(job.task_id);
  }

  /**
   * A cancelled task's job, closed by the handler in this instance: its model call, if it runs here,
   * is aborted at once; its temporary files and any report it had are removed.
   */
  async stopCancelled(job: StoppedJob): Promise<void> {
    this.calls.get(job.taskId)?.abort();
    await this.reports.removeTemporaryFiles(job.taskId);
    if (job.hadReport) await this.reports.remove(job.taskId);
  }

  /** An erased user's tasks: calls running here aborted, reports and temporary files removed. How many files went. */
  async stopErased(taskIds: string[]): Promise<number> {
    let removed = 0;
    for (const taskId of taskIds) {
      this.calls.get(taskId)?.abort();
      removed += (await this.reports.removeTemporaryFiles(taskId)) + (await this.reports.remove(taskId));
    }
    return removed;
  }

  /** Calls running here for jobs another instance closed (its handler took the cancel): aborted, once per poll interval. */
  private async abortCancelledElsewhere(): Promise<void> {
    if (this.calls.size === 0) return;
    for (const taskId of await cancelledAmong(this.knex, [...this.calls.keys()])) this.calls.get(taskId)?.abort();
  }
}
