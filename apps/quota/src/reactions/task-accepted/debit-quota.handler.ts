import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { namedUsersBook } from '../../ledger/quota-books';
import { decideInTurn } from '../../ledger/quota.rules';
import { onTaskAccepted } from './debit.rules';
import { recordDecisions } from '../../ledger/record-decision';
import type { Allowances } from '../../partners/allowances';

/**
 * One quota unit per accepted task: debited when the balance allows (QuotaDebited), refused
 * otherwise (QuotaRejected, a business refusal and so an event, never retried). The decision is kept
 * in the ledger, so a second delivery of the task gets no second decision.
 */
export async function debitQuota(events: Array<EventOf<'TaskAccepted'>>, context: BatchContext, allowances: Allowances): Promise<void> {
  const book = await namedUsersBook(context.trx, events, allowances);
  const decided = decideInTurn(book, events, (task, event, balanceOf) => onTaskAccepted(task, event.userId, balanceOf(event.userId)));
  await recordDecisions(context, book, decided);
}
