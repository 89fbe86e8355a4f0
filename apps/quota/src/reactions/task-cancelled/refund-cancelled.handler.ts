import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { cancelledTasksBook } from '../../ledger/quota-books';
import { decideInTurn } from '../../ledger/quota.rules';
import { onTaskCancelled } from './refund-cancelled.rules';
import { recordDecisions } from '../../ledger/record-decision';
import type { Allowances } from '../../partners/allowances';

/** A cancelled task is never charged: its debit is refunded, or, not yet decided, it is refused (QuotaRejected{CANCELLED}). */
export async function refundCancelled(events: Array<EventOf<'TaskCancelled'>>, context: BatchContext, allowances: Allowances): Promise<void> {
  const book = await cancelledTasksBook(context.trx, events, allowances);
  const decided = decideInTurn(book, events, (task, event, balanceOf) => onTaskCancelled(task, event.userId, balanceOf));
  await recordDecisions(context, book, decided);
}
