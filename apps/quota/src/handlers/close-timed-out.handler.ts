import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { loadTaskLedgers, lockAccounts } from '../ledger/quota-account';
import { decideInTurn, onTaskTimedOut } from '../ledger/quota.rules';
import { recordDecisions } from '../ledger/record-decision';

/** A task that timed out before quota decided on it is refused (QuotaRejected{TIMED_OUT}). */
export async function closeTimedOut(events: Array<EventOf<'TaskTimedOut'>>, context: BatchContext, defaultQuota: number): Promise<void> {
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
  const decided = decideInTurn(book, events, (task, event, balanceOf) => onTaskTimedOut(task, event.userId, balanceOf(event.userId)));
  await recordDecisions(context, book, decided);
}
