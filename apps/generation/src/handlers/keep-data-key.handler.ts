import type { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { forgetDataKey, keepDataKey } from '@app/personal-data';

/**
 * A user's data key, as tasks issued it: kept wrapped, to open the inputs sealed under it when a job
 * runs. Its erasure (no wrapped key) forgets it and remembers its id: a job sealed under it fails at
 * once (INPUT_ERASED) rather than waiting for a key that will not come. Both come keyed by the key's
 * id, on one partition, in the order tasks wrote them.
 */
export async function keepDataKeyOf(event: EventOf<'UserDataKey'>, { trx }: HandlerContext): Promise<void> {
  const keyId = event.taskId;
  if (event.wrappedKey !== null) {
    if (await trx('erased_data_keys').where({ key_id: keyId }).first()) return; // erased meanwhile (a redelivery)
    return keepDataKey(trx, { keyId, userId: event.userId, wrapped: event.wrappedKey });
  }
  await forgetDataKey(trx, keyId);
  await trx('erased_data_keys').insert({ key_id: keyId }).onConflict('key_id').ignore();
}
