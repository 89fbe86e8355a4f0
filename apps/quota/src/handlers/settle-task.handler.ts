import type { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { holdAccount, loadTaskLedger } from '../ledger/quota-account';
import { onGenerationSucceeded } from '../ledger/quota.rules';
import { recordDecision } from '../ledger/record-decision';

/** The task's generation succeeded: its debit stands for good, whatever failure may be claimed later. */
export async function settleTask(event: EventOf<'GenerationSucceeded'>, context: HandlerContext): Promise<void> {
  let ledger = await loadTaskLedger(context.trx, event.taskId);
  if (ledger.debit) {
    // Read again under the debited account's lock: a refund may have been decided meanwhile.
    await holdAccount(context.trx, ledger.debit.userId, 0);
    ledger = await loadTaskLedger(context.trx, event.taskId);
  }
  await recordDecision(context, event, onGenerationSucceeded(ledger));
}
