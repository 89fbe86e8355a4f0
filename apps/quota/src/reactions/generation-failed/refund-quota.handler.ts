import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { debitedBook } from '../../ledger/quota-books';
import { decideInTurn } from '../../ledger/quota.rules';
import { onGenerationFailed } from './refund.rules';
import { recordDecisions } from '../../ledger/record-decision';

/**
 * Compensation: a failed generation gives back its task's debit, once, and only if there was one, to
 * the user it was taken from. Nothing in the failure event is trusted beyond its taskId.
 */
export async function refundQuota(events: Array<EventOf<'GenerationFailed'>>, context: BatchContext): Promise<void> {
  const book = await debitedBook(
    context.trx,
    events.map((event) => event.taskId),
  );
  const decided = decideInTurn(book, events, (task, _event, balanceOf) => onGenerationFailed(task, task.debit ? balanceOf(task.debit.userId) : 0));
  await recordDecisions(context, book, decided);
}
