import { Inject, Injectable } from '@nestjs/common';
import { HandlersOf, HandlerSource, setBased } from '@app/messaging';
import { answerErasure } from './reactions/user-erasure-requested/answer-erasure.handler';
import { closeTimedOut } from './reactions/task-timed-out/close-timed-out.handler';
import { debitQuota } from './reactions/task-accepted/debit-quota.handler';
import { refundCancelled } from './reactions/task-cancelled/refund-cancelled.handler';
import { refundQuota } from './reactions/generation-failed/refund-quota.handler';
import { settleTask } from './reactions/generation-succeeded/settle-task.handler';
import { QUOTA_CONFIG, QuotaConfig } from './quota.config';

/**
 * What quota reacts to, each reaction in reactions/<event>/ (load the accounts → decide with its
 * rules, on the book of ledger/quota.rules → record the decisions), its rules and int specs beside it:
 * - TaskAccepted → QuotaDebited, or QuotaRejected (insufficient, or the task already cancelled);
 * - GenerationSucceeded → the debit settled (nothing published);
 * - GenerationFailed → QuotaRefunded, once, where it debited;
 * - TaskTimedOut → QuotaRefunded where it debited, the task closed for a late request;
 * - TaskCancelled → QuotaRefunded where it debited, or the task closed (QuotaRejected{CANCELLED} later);
 * - UserErasureRequested → UserDataErased (quota keeps nothing personal).
 */
@Injectable()
export class QuotaHandlers implements HandlerSource<'quota'> {
  constructor(@Inject(QUOTA_CONFIG) private readonly config: QuotaConfig) {}

  handlers(): HandlersOf<'quota'> {
    return {
      TaskAccepted: setBased<'TaskAccepted'>((events, context) => debitQuota(events, context, this.config)),
      GenerationSucceeded: setBased(settleTask),
      GenerationFailed: setBased(refundQuota),
      TaskTimedOut: setBased<'TaskTimedOut'>((events, context) => closeTimedOut(events, context, this.config)),
      TaskCancelled: setBased<'TaskCancelled'>((events, context) => refundCancelled(events, context, this.config)),
      UserErasureRequested: answerErasure,
    };
  }
}
