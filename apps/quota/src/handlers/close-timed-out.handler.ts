import type { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { loadTaskLedger, lockAccount } from '../ledger/quota-account';
import { onTaskTimedOut } from '../ledger/quota.rules';
import { recordDecision } from '../ledger/record-decision';

/** A task that timed out before quota decided on it is refused (QuotaRejected{TIMED_OUT}). */
export async function closeTimedOut(event: EventOf<'TaskTimedOut'>, context: HandlerContext, defaultQuota: number): Promise<void> {
  const account = await lockAccount(context.trx, event.userId, defaultQuota);
  const task = await loadTaskLedger(context.trx, event.taskId);
  await recordDecision(context, event, onTaskTimedOut(task, event.userId, account.balance));
}
