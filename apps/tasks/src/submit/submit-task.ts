import { ConflictException, HttpStatus, UnprocessableEntityException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { newEvent } from '@app/events';
import { outbox } from '@app/messaging';
import { PersonalData } from '@app/personal-data';
import { traceparentFor, traceparentOf } from '@app/tracing';
import { conflictWhenBusy } from '@app/service';
import { recordNewTask } from '../projection/apply-to-task';
import { TasksConfig } from '../tasks.config';
import { claimKey, KeyRow } from './claim-key';
import { requestHash } from './request-hash';
import { sealInput } from './seal-input';
import { namespaceOf } from '@app/catalogue';
import { limitsOf, PartnerLimits, partnerSlotTaken, partnerTooFast, partnerTooManyOpenTasks, takePartnerToken } from '../partners/partner-limits';
import { openTaskSlotTaken, takeRateToken, tooManyOpenTasks, userSlots } from './user-limits';

export interface TaskSubmission {
  userId: string;
  reportType: string;
  input: Record<string, unknown>;
}

export interface SubmissionResult {
  status: number;
  body: { taskId: string; state: string; userId: string; reportType: string };
  replayed: boolean;
}

const route = 'POST /tasks';

/**
 * POST /tasks under an Idempotency-Key: the key row (with the answer a replay gets), the task row,
 * its timeline and the TaskAccepted outbox row (the input sealed under the user's data key), and the
 * user's open-task slot commit in one transaction (three statements between its begin and its commit:
 * the key with the lock timeout, the user's data key, the rest), so a request that fails leaves nothing behind. A request with a key that another request
 * is still holding waits for it (up to the lock timeout, then 409) and then replays its answer; the
 * same key with other content is a 422. Each request takes a token from the user's rate bucket (and
 * from its namespace's, for a partner's user), and a new task is refused while the user, or all the
 * users of its namespace together, have too many unfinished ones (429).
 */
export async function submitTask(knex: Knex, config: TasksConfig, personal: PersonalData, key: string, submission: TaskSubmission): Promise<SubmissionResult> {
  const hash = requestHash(submission);
  await takeRateToken(knex, submission.userId, config.userRateLimit, config.userRateBurst);
  const share = await partnerShare(knex, submission.userId, config);
  return conflictWhenBusy(
    () =>
      knex.transaction(async (trx) => {
        const scope = { user_id: submission.userId, route, key };
        const taskId = randomUUID();
        const body = { taskId, state: 'QUEUED', userId: submission.userId, reportType: submission.reportType };
        const earlier = await claimKey(trx, scope, hash, taskId, config.idempotencyTtlMs, { status: HttpStatus.ACCEPTED, body }, config.keyLockTimeoutMs);
        if (earlier) return replay(earlier, hash);
        const origin = { taskId, userId: submission.userId, correlationId: randomUUID(), causationId: null };
        const { sealed, keyIssued } = await sealInput(trx, personal, JSON.stringify(submission.input), origin);
        const accepted = newEvent('TaskAccepted', { idempotencyKey: key, reportType: submission.reportType, input: sealed }, origin, 'tasks');
        const traceparent = traceparentOf() ?? traceparentFor(accepted.correlationId);
        if (keyIssued) await outbox.add(trx, keyIssued);
        const full = await recordNewTask(trx, accepted, traceparent, {
          user: openTaskSlotTaken(trx, userSlots, submission.userId, config.userMaxOpenTasks),
          ...(share && { partner: partnerSlotTaken(trx, share.partner, share.limits) }),
        });
        if (full.includes('user')) throw tooManyOpenTasks(submission.userId, config.userMaxOpenTasks);
        if (share && full.includes('partner')) throw partnerTooManyOpenTasks(share.partner, share.limits);
        return { status: HttpStatus.ACCEPTED, body, replayed: false };
      }),
    `a request with Idempotency-Key "${key}" is still in progress; retry shortly`,
  );
}

/** A partner's user's request takes a token from its namespace's bucket too: the namespace and its limits, or a 429. */
async function partnerShare(knex: Knex, userId: string, config: TasksConfig): Promise<{ partner: string; limits: PartnerLimits } | undefined> {
  const partner = namespaceOf(userId);
  if (partner === undefined) return undefined;
  const limits = await limitsOf(knex, partner, config.partnerDefaults);
  const waitSeconds = await takePartnerToken(knex, partner, limits);
  if (waitSeconds !== undefined) throw partnerTooFast(partner, limits, waitSeconds);
  return { partner, limits };
}

function replay(row: KeyRow, hash: string): SubmissionResult {
  if (row.request_hash !== hash) {
    throw new UnprocessableEntityException('this Idempotency-Key was already used with a different request body');
  }
  if (row.response_status === null) throw new ConflictException('a request with this Idempotency-Key is still in progress');
  return { status: row.response_status, body: row.response_body as SubmissionResult['body'], replayed: true };
}
