import type { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { loadTaskLedger, lockAccount } from '../ledger/quota-account';
import { onTaskAccepted } from '../ledger/quota.rules';
import { recordDecision } from '../ledger/record-decision';

/**
 * One quota unit per accepted task: debited when the balance allows (QuotaDebited), refused
 * otherwise (QuotaRejected, a business refusal and so an event, never retried). The decision is kept
 * in the ledger, so a second delivery of the task gets no second decision.
 */
export async function debitQuota(event: EventOf<'TaskAccepted'>, context: HandlerContext, defaultQuota: number): Promise<void> {
  const account = await lockAccount(context.trx, event.userId, defaultQuota);
  const task = await loadTaskLedger(context.trx, event.taskId);
  await recordDecision(context, event, onTaskAccepted(task, event.userId, account.balance));
}
