import { Inject, Injectable } from '@nestjs/common';
import { EventHandlers, HandlerSource, setBased } from '@app/messaging';
import { answerErasure } from './handlers/answer-erasure.handler';
import { closeTimedOut } from './handlers/close-timed-out.handler';
import { debitQuota } from './handlers/debit-quota.handler';
import { refundCancelled } from './handlers/refund-cancelled.handler';
import { refundQuota } from './handlers/refund-quota.handler';
import { settleTask } from './handlers/settle-task.handler';
import { QUOTA_CONFIG, QuotaConfig } from './quota.config';

@Injectable()
export class QuotaHandlers implements HandlerSource {
  constructor(@Inject(QUOTA_CONFIG) private readonly config: QuotaConfig) {}

  handlers(): EventHandlers {
    return {
      TaskAccepted: setBased<'TaskAccepted'>((events, context) => debitQuota(events, context, this.config.defaultQuota)),
      GenerationSucceeded: setBased(settleTask),
      GenerationFailed: setBased(refundQuota),
      TaskTimedOut: setBased<'TaskTimedOut'>((events, context) => closeTimedOut(events, context, this.config.defaultQuota)),
      TaskCancelled: setBased<'TaskCancelled'>((events, context) => refundCancelled(events, context, this.config.defaultQuota)),
      UserErasureRequested: answerErasure,
    };
  }
}
