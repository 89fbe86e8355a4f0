import { Injectable } from '@nestjs/common';
import { HandlersOf, HandlerSource, setBased } from '@app/messaging';
import { recordDebits } from './reactions/quota-debited/record-debit.handler';
import { recordRefusals } from './reactions/quota-rejected/record-refusal.handler';
import { recordRequests } from './reactions/task-accepted/record-request.handler';
import { stopCancelled } from './reactions/task-cancelled/stop-cancelled.handler';
import { stopTimedOut } from './reactions/task-timed-out/stop-timed-out.handler';
import { keepDataKeyOf } from './reactions/user-data-key/keep-data-key.handler';
import { eraseUserData } from './reactions/user-erasure-requested/erase-user-data.handler';
import { FailedJobCleanup } from './jobs/failed-job-cleanup';
import { GenerationWorker } from './jobs/generation.worker';
import { StartDueJobs } from './jobs/upsert-job';

/**
 * What generation reacts to, each reaction in reactions/<event>/:
 * - TaskAccepted, QuotaDebited → the job's request and go-ahead kept; with its user's key, it is due
 *   (its attempts publish GenerationStarted, GenerationRetryScheduled, GenerationSucceeded or GenerationFailed);
 * - QuotaRejected → the job refused (it never runs);
 * - TaskTimedOut, TaskCancelled → the job closed, its model call aborted, its files removed;
 * - UserDataKey → the user's key kept (or forgotten), jobs waiting for it due;
 * - UserErasureRequested → the user's keys, inputs and reports gone, UserDataErased.
 */
@Injectable()
export class GenerationHandlers implements HandlerSource<'generation'> {
  constructor(
    private readonly worker: GenerationWorker,
    private readonly cleanup: FailedJobCleanup,
  ) {}

  handlers(): HandlersOf<'generation'> {
    // A job made due starts in the same transaction when the worker has a slot; otherwise the commit wakes it.
    const startDue: StartDueJobs = (trx, jobs) => this.worker.startInTransaction(trx, jobs);
    return {
      TaskAccepted: setBased<'TaskAccepted'>((events, context) => recordRequests(events, context, startDue)),
      QuotaDebited: setBased<'QuotaDebited'>((events, context) => recordDebits(events, context, startDue)),
      QuotaRejected: setBased(recordRefusals),
      TaskTimedOut: setBased<'TaskTimedOut'>((events, context) => stopTimedOut(events, context, (job) => this.cleanup.cleanUp(job.task_id, job.attempts))),
      TaskCancelled: setBased<'TaskCancelled'>((events, context) => stopCancelled(events, context, (job) => this.worker.stopCancelled(job))),
      UserDataKey: (event, context) => keepDataKeyOf(event, context, startDue),
      UserErasureRequested: (event, context) => eraseUserData(event, context, (taskIds) => this.worker.stopErased(taskIds), startDue),
    };
  }
}
