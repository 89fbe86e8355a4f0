import type { Logger } from '@nestjs/common';
import type { Knex } from 'knex';
import type { GenerationConfig } from '../generation.config';
import { ModelOutcome } from '../model/model-outcome.rules';
import { decideAfterAttempt } from './attempt-outcome.rules';
import { anyInterruptedJob, claimInterruptedJobs, recordAttempt } from './job-store';

const interrupted: ModelOutcome = { ok: false, code: 'ATTEMPT_INTERRUPTED', retriable: true, message: 'the attempt was interrupted' };

/** A job whose lease ran out lost its attempt to a crash: that attempt failed transiently, and is decided as such. */
export async function recoverInterruptedAttempts(knex: Knex, config: GenerationConfig, logger: Logger): Promise<void> {
  if (!(await anyInterruptedJob(knex))) return;
  await knex.transaction(async (trx) => {
    for (const job of await claimInterruptedJobs(trx, 10)) {
      const decision = decideAfterAttempt(interrupted, job.attempts, config.retryDelaysMs, config.retryJitter);
      await recordAttempt(trx, job, job.attempts, interrupted, decision);
      logger.warn(`attempt ${job.attempts} of ${job.task_id} was interrupted; ${decision.kind}`);
    }
  });
}
