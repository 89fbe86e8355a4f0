import type { Knex } from 'knex';
import { errorCodes } from '@app/failures';
import { DataKey, erased, keyIdOf, openText, PersonalData } from '@app/personal-data';
import type { ModelOutcome } from '../model/model-outcome.rules';
import type { Job } from './job-store';

export type JobInput = { input: unknown; dataKey?: DataKey } | { failure: ModelOutcome };

const failure = (code: 'INPUT_ERASED' | 'DATA_KEY_NOT_YET_KNOWN', message: string): { failure: ModelOutcome } => ({
  failure: { ok: false, code, retriable: errorCodes[code].retriable, message },
});

/**
 * The job's input, opened with its user's data key for the model call, and the key its report is to
 * be sealed under. An erased user's input fails the attempt for good; a key that has not reached this
 * service yet (it travels on its own topic) fails it transiently, to be tried again after the backoff.
 * An input written before sealing is read as it is.
 */
export async function openJobInput(db: Knex, personal: PersonalData, job: Pick<Job, 'input' | 'user_id' | 'wrapped_key'>): Promise<JobInput> {
  const text = typeof job.input === 'string' ? job.input : null;
  if (text === null || text === erased) return failure('INPUT_ERASED', 'the task’s input was erased with its user’s data');
  const keyId = keyIdOf(text);
  if (!keyId) return { input: parsed(text) };
  // Read with the job when it was claimed or became due; otherwise read now.
  const dataKey = job.wrapped_key !== undefined ? personal.keptKeyOf(text, job.user_id, job.wrapped_key) : await personal.keyOf(db, text);
  if (dataKey) return { input: parsed(openText(text, () => dataKey)), dataKey };
  if (await db('erased_data_keys').where({ key_id: keyId }).first()) return failure('INPUT_ERASED', 'the task’s input was erased with its user’s data');
  return failure('DATA_KEY_NOT_YET_KNOWN', `the user's data key ${keyId} has not reached generation yet`);
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
