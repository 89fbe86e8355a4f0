import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { namedUsersBook } from '../../ledger/quota-books';
import { decideInTurn } from '../../ledger/quota.rules';
import { onTaskTimedOut } from './close-timed-out.rules';
import { recordDecisions } from '../../ledger/record-decision';
import type { Allowances } from '../../partners/allowances';

/** A task that timed out before quota decided on it is refused (QuotaRejected{TIMED_OUT}). */
export async function closeTimedOut(events: Array<EventOf<'TaskTimedOut'>>, context: BatchContext, allowances: Allowances): Promise<void> {
  const book = await namedUsersBook(context.trx, events, allowances);
  const decided = decideInTurn(book, events, (task, event, balanceOf) => onTaskTimedOut(task, event.userId, balanceOf(event.userId)));
  await recordDecisions(context, book, decided);
}
