import { Injectable } from '@nestjs/common';
import { EventHandlers, HandlerSource, setBased } from '@app/messaging';
import { recordDebits } from './handlers/record-debit.handler';
import { recordRefusals } from './handlers/record-refusal.handler';
import { recordRequests } from './handlers/record-request.handler';
import { stopTimedOut } from './handlers/stop-timed-out.handler';
import { FailedJobCleanup } from './jobs/failed-job-cleanup';
import { GenerationWorker } from './jobs/generation.worker';

@Injectable()
export class GenerationHandlers implements HandlerSource {
  constructor(
    private readonly worker: GenerationWorker,
    private readonly cleanup: FailedJobCleanup,
  ) {}

  handlers(): EventHandlers {
    // A job may be due once the transaction commits: the worker is woken rather than left to its poll.
    const wakeWorker = () => this.worker.wake();
    return {
      TaskAccepted: setBased<'TaskAccepted'>((events, context) => recordRequests(events, context, wakeWorker)),
      QuotaDebited: setBased<'QuotaDebited'>((events, context) => recordDebits(events, context, wakeWorker)),
      QuotaRejected: setBased(recordRefusals),
      TaskTimedOut: (event, context) => stopTimedOut(event, context, (job) => this.cleanup.cleanUp(job.task_id, job.attempts)),
    };
  }
}
