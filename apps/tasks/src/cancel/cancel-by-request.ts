import { ForbiddenException, HttpStatus, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import type { Knex } from 'knex';
import { setLockTimeout } from '@app/database';
import { Caller, isViewer, mayActFor } from '@app/auth';
import { DomainEvent } from '@app/events';
import { outbox } from '@app/messaging';
import { conflictWhenBusy } from '@app/service';
import { claimKey } from '../submit/claim-key';
import { requestHash } from '../submit/request-hash';
import { TasksConfig } from '../tasks.config';
import { cancelTask, CancelledTask, lockTaskToCancel } from './cancel-task';

export interface CancelAnswer {
  status: number;
  body: CancelledTask;
  replayed: boolean;
}

const route = 'POST /tasks/:taskId/cancel';

/**
 * POST /tasks/{taskId}/cancel under an Idempotency-Key, in one transaction: the task's row is locked,
 * the key claimed, the cancel decided and (when it wins) TaskCancelled and the task's outcome written
 * to the outbox, and the answer kept with the key: 202 with the task cancelled, or 409 with the
 * outcome it had already. The same key again replays that answer; with another task, 422.
 */
export async function cancelByRequest(knex: Knex, config: TasksConfig, caller: Caller, taskId: string, key: string): Promise<CancelAnswer> {
  if (isViewer(caller)) throw new ForbiddenException('a viewer reads, and changes nothing');
  return conflictWhenBusy(
    () =>
      knex.transaction(async (trx) => {
        await setLockTimeout(trx, config.keyLockTimeoutMs);
        const task = await lockTaskToCancel(trx, taskId);
        // Another user's task is not found, as one that does not exist.
        if (!task || !mayActFor(caller, task.user_id)) throw new NotFoundException(`no task ${taskId}`);
        const scope = { user_id: caller.userId, route, key };
        const hash = requestHash({ cancel: taskId });
        const earlier = await claimKey(trx, scope, hash, taskId, config.idempotencyTtlMs);
        if (earlier) {
          if (earlier.request_hash !== hash) throw new UnprocessableEntityException('this Idempotency-Key was already used to cancel another task');
          return { status: earlier.response_status!, body: earlier.response_body as CancelledTask, replayed: true };
        }
        const publish = (event: DomainEvent) => outbox.add(trx, event);
        const decision = await cancelTask(trx, task, caller.userId, null, publish);
        const status = decision.kind === 'cancelled' ? HttpStatus.ACCEPTED : HttpStatus.CONFLICT;
        await trx('idempotency_keys')
          .where(scope)
          .update({ response_status: status, response_body: JSON.stringify(decision.task) });
        return { status, body: decision.task, replayed: false };
      }),
    `the task or Idempotency-Key "${key}" is busy; retry shortly`,
  );
}
