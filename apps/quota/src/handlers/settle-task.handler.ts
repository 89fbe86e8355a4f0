import type { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { loadTaskLedger, lockAccount } from '../ledger/quota-account';
import { onGenerationSucceeded } from '../ledger/quota.rules';
import { recordDecision } from '../ledger/record-decision';

/** The task's generation succeeded: its debit stands for good, whatever failure may be claimed later. */
export async function settleTask(event: EventOf<'GenerationSucceeded'>, context: HandlerContext): Promise<void> {
  const debit = (await loadTaskLedger(context.trx, event.taskId)).debit;
  if (debit) await lockAccount(context.trx, debit.userId, 0);
  await recordDecision(context, event, onGenerationSucceeded(await loadTaskLedger(context.trx, event.taskId)));
}
