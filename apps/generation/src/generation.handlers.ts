import { Injectable } from '@nestjs/common';
import { EventHandlers, HandlerSource, setBased } from '@app/messaging';
import { recordDebits } from './handlers/record-debit.handler';
import { recordRefusals } from './handlers/record-refusal.handler';
import { recordRequests } from './handlers/record-request.handler';
import { stopCancelled } from './handlers/stop-cancelled.handler';
import { stopTimedOut } from './handlers/stop-timed-out.handler';
import { keepDataKeyOf } from './handlers/keep-data-key.handler';
import { eraseUserData } from './handlers/erase-user-data.handler';
import { FailedJobCleanup } from './jobs/failed-job-cleanup';
import { GenerationWorker } from './jobs/generation.worker';
import { StartDueJobs } from './jobs/upsert-job';

@Injectable()
export class GenerationHandlers implements HandlerSource {
  constructor(
    private readonly worker: GenerationWorker,
    private readonly cleanup: FailedJobCleanup,
  ) {}

  handlers(): EventHandlers {
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
