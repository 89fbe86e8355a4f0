import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { loadTaskLedgers, lockAccounts } from '../ledger/quota-account';
import { decideInTurn, onTaskAccepted } from '../ledger/quota.rules';
import { recordDecisions } from '../ledger/record-decision';

/**
 * One quota unit per accepted task: debited when the balance allows (QuotaDebited), refused
 * otherwise (QuotaRejected, a business refusal and so an event, never retried). The decision is kept
 * in the ledger, so a second delivery of the task gets no second decision.
 */
export async function debitQuota(events: Array<EventOf<'TaskAccepted'>>, context: BatchContext, defaultQuota: number): Promise<void> {
  const balances = await lockAccounts(
    context.trx,
    events.map((event) => event.userId),
    defaultQuota,
  );
  const book = {
    balances,
    tasks: await loadTaskLedgers(
      context.trx,
      events.map((event) => event.taskId),
    ),
  };
  const decided = decideInTurn(book, events, (task, event, balanceOf) => onTaskAccepted(task, event.userId, balanceOf(event.userId)));
  await recordDecisions(context, book, decided);
}
