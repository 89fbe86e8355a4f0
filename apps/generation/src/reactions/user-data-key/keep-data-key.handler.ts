import type { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { forgetDataKey, keepDataKey } from '@app/personal-data';
import { jobsNoLongerWaitingForKeys, StartDueJobs } from '../../jobs/upsert-job';

/**
 * A user's data key, as tasks issued it: kept wrapped, to open the inputs sealed under it when a job
 * runs. Its erasure (no wrapped key) forgets it and remembers its id: a job sealed under it fails at
 * once (INPUT_ERASED) rather than waiting for a key that will not come. Both come keyed by the key's
 * id, on one partition, in the order tasks wrote them. A job waits for its key as for its request
 * and its debit: either makes it due.
 */
export async function keepDataKeyOf(event: EventOf<'UserDataKey'>, { trx }: HandlerContext, startDue: StartDueJobs): Promise<void> {
  const keyId = event.taskId;
  if (event.wrappedKey === null) {
    await forgetDataKey(trx, keyId);
    await trx('erased_data_keys').insert({ key_id: keyId }).onConflict('key_id').ignore();
  } else if (!(await trx('erased_data_keys').where({ key_id: keyId }).first())) {
    await keepDataKey(trx, { keyId, userId: event.userId, wrapped: event.wrappedKey });
  }
  // Jobs that had their request and debit before their key are due now.
  await startDue(trx, await jobsNoLongerWaitingForKeys(trx, event.userId));
}
