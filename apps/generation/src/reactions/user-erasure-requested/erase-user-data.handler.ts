import { causedBy, EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { erased, forgetDataKeys } from '@app/personal-data';
import { jobsNoLongerWaitingForKeys, StartDueJobs } from '../../jobs/upsert-job';

/**
 * An erasure: the user's keys are forgotten (and remembered as erased), every job of theirs keeps
 * `[erased]` for an input, and once that commits their reports and temporary files are removed and
 * any model call still running for them is aborted (`removeFiles`). Tasks is told what was erased.
 */
export async function eraseUserData(
  event: EventOf<'UserErasureRequested'>,
  { trx, publish, afterCommit }: HandlerContext,
  removeFiles: (taskIds: string[]) => Promise<number>,
  startDue: StartDueJobs,
): Promise<void> {
  const keyIds = await forgetDataKeys(trx, event.userId);
  if (keyIds.length > 0) {
    await trx('erased_data_keys')
      .insert(keyIds.map((keyId) => ({ key_id: keyId })))
      .onConflict('key_id')
      .ignore();
  }
  const inputs = await trx('generation_jobs').where({ user_id: event.userId }).whereNot({ input: erased }).update({ input: erased });
  // A job that waited for the key now waits for nothing: its attempt fails for good, and quota refunds it.
  await startDue(trx, await jobsNoLongerWaitingForKeys(trx, event.userId));
  const taskIds: string[] = (await trx('generation_jobs').where({ user_id: event.userId }).select('task_id')).map((row: { task_id: string }) => row.task_id);
  afterCommit(() => removeFiles(taskIds));
  await publish(causedBy(event, 'UserDataErased', { service: 'generation', erased: keyIds.length + inputs }));
}
