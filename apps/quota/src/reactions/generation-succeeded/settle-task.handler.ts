import type { EventOf } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { debitedBook } from '../../ledger/quota-books';
import { decideInTurn } from '../../ledger/quota.rules';
import { onGenerationSucceeded } from './settle.rules';
import { recordDecisions } from '../../ledger/record-decision';

/** The task's generation succeeded: its debit stands for good, whatever failure may be claimed later. */
export async function settleTask(events: Array<EventOf<'GenerationSucceeded'>>, context: BatchContext): Promise<void> {
  const book = await debitedBook(
    context.trx,
    events.map((event) => event.taskId),
  );
  await recordDecisions(
    context,
    book,
    decideInTurn(book, events, (task) => onGenerationSucceeded(task)),
  );
}
