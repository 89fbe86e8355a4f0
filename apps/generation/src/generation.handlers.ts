import { Injectable } from '@nestjs/common';
import type { EventHandlers, HandlerContext, HandlerSource } from '@app/messaging';
import { recordDebit, recordRefusal, recordRequest, stopTimedOut } from './handlers/record-request.handler';
import { FailedJobCleanup } from './jobs/failed-job-cleanup';
import { GenerationWorker } from './jobs/generation.worker';

@Injectable()
export class GenerationHandlers implements HandlerSource {
  constructor(
    private readonly worker: GenerationWorker,
    private readonly cleanup: FailedJobCleanup,
  ) {}

  handlers(): EventHandlers {
    // Once the transaction commits, a job may be due: wake the worker rather than wait for its poll.
    const thenWake = (context: HandlerContext) =>
      void context.trx.executionPromise.then(
        () => this.worker.wake(),
        () => undefined,
      );
    return {
      TaskAccepted: async (event, context) => {
        await recordRequest(event, context);
        thenWake(context);
      },
      QuotaDebited: async (event, context) => {
        await recordDebit(event, context);
        thenWake(context);
      },
      QuotaRejected: recordRefusal,
      TaskTimedOut: async (event, context) => {
        const failed = await stopTimedOut(event, context);
        if (failed)
          void context.trx.executionPromise.then(
            () => this.cleanup.cleanUp(failed.task_id, failed.attempts),
            () => undefined,
          );
      },
    };
  }
}
