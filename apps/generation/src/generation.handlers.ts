import { Injectable } from '@nestjs/common';
import type { EventHandlers, HandlerSource } from '@app/messaging';
import { recordDebit } from './handlers/record-debit.handler';
import { recordRefusal } from './handlers/record-refusal.handler';
import { recordRequest } from './handlers/record-request.handler';
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
      TaskAccepted: (event, context) => recordRequest(event, context, wakeWorker),
      QuotaDebited: (event, context) => recordDebit(event, context, wakeWorker),
      QuotaRejected: recordRefusal,
      TaskTimedOut: (event, context) => stopTimedOut(event, context, (job) => this.cleanup.cleanUp(job.task_id, job.attempts)),
    };
  }
}
