import type { Knex } from 'knex';
import { EventOf, newEvent } from '@app/events';
import { PersonalData, sealText, userDataKey } from '@app/personal-data';

export interface SealedInput {
  sealed: string;
  /** The user's new data key, to publish (tasks issues each user's key with their first accepted task). */
  keyIssued?: EventOf<'UserDataKey'>;
}

/**
 * A request's input sealed under its user's data key, in the transaction that accepts the task: the
 * key is issued in it when the user has none, and its UserDataKey (the key wrapped under the master
 * key) is to be published with the acceptance, for generation. Nothing after this point holds the
 * input in clear: the task's row, its timeline, TaskAccepted and every copy of it.
 */
export async function sealInput(
  trx: Knex.Transaction,
  personal: PersonalData,
  input: string,
  task: { taskId: string; userId: string; correlationId: string; causationId: string | null },
): Promise<SealedInput> {
  const { dataKey, wrapped, issued } = await userDataKey(trx, task.userId, personal.master);
  const sealed = sealText(input, dataKey);
  if (!issued) return { sealed };
  const origin = { taskId: dataKey.keyId, userId: task.userId, correlationId: task.correlationId, causationId: task.causationId };
  return { sealed, keyIssued: newEvent('UserDataKey', { wrappedKey: wrapped }, origin, 'tasks') };
}
