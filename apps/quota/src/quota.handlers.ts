import { Inject, Injectable } from '@nestjs/common';
import type { EventHandlers, HandlerSource } from '@app/messaging';
import { closeTimedOut } from './handlers/close-timed-out.handler';
import { debitQuota } from './handlers/debit-quota.handler';
import { refundQuota } from './handlers/refund-quota.handler';
import { settleTask } from './handlers/settle-task.handler';
import { QUOTA_CONFIG, QuotaConfig } from './quota.config';

@Injectable()
export class QuotaHandlers implements HandlerSource {
  constructor(@Inject(QUOTA_CONFIG) private readonly config: QuotaConfig) {}

  handlers(): EventHandlers {
    return {
      TaskAccepted: (event, context) => debitQuota(event, context, this.config.defaultQuota),
      GenerationSucceeded: settleTask,
      GenerationFailed: (event, context) => refundQuota(event, context, this.config.defaultQuota),
      TaskTimedOut: (event, context) => closeTimedOut(event, context, this.config.defaultQuota),
    };
  }
}
