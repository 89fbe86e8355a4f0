import { HttpStatus, UnprocessableEntityException } from '@nestjs/common';
import { traceparentFor } from '@app/tracing';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { setLockTimeout } from '@app/database';
import { DomainEvent, newEvent } from '@app/events';
import { outbox } from '@app/messaging';
import { erased, forgetDataKeys } from '@app/personal-data';
import { claimKey } from '../submit/claim-key';
import { requestHash } from '../submit/request-hash';
import { TasksConfig } from '../tasks.config';
import { erasureStatus, ErasureStatus } from './erasure-status';

export interface ErasureAnswer {
  status: number;
  body: ErasureStatus;
  replayed: boolean;
}

const route = 'DELETE /users/:userId/data';

/**
 * DELETE /users/{userId}/data under an Idempotency-Key (an admin's), in one transaction: the user's
 * data key is forgotten here (every input sealed under it, on every topic and in every row, can no
 * longer be opened), the inputs the tasks kept are overwritten with `[erased]` (those written before
 * sealing too), the key's erasure is published to the keys' topic (generation forgets its copy, and
 * compaction drops the wrapped bytes) and UserErasureRequested to the other services. Task ids,
 * states, reasons and times stay: the ledger and the audit need them.
 */
export async function eraseUser(knex: Knex, config: TasksConfig, adminId: string, userId: string, key: string): Promise<ErasureAnswer> {
  return knex.transaction(async (trx) => {
    await setLockTimeout(trx, config.keyLockTimeoutMs);
    const erasureId = randomUUID();
    const hash = requestHash({ erase: userId });
    const earlier = await claimKey(trx, { user_id: adminId, route, key }, hash, erasureId, config.idempotencyTtlMs);
    if (earlier) {
      if (earlier.request_hash !== hash) throw new UnprocessableEntityException('this Idempotency-Key was already used to erase another user');
      return { status: HttpStatus.ACCEPTED, body: (await erasureStatus(trx, earlier.task_id))!, replayed: true };
    }
    await trx('user_erasures').insert({ erasure_id: erasureId, user_id: userId, requested_by: adminId });
    const keyIds = await forgetDataKeys(trx, userId);
    const inputs = await trx('tasks').where({ user_id: userId }).whereNot({ input: erased }).update({ input: erased });
    await trx.raw(
      `update task_timeline set payload = jsonb_set(payload, '{input}', to_jsonb(?::text))
       where payload->>'input' is not null and task_id in (select task_id from tasks where user_id = ?)`,
      [erased, userId],
    );
    const origin = (taskId: string) => ({ taskId, userId, correlationId: erasureId, causationId: null });
    const events: DomainEvent[] = [
      ...keyIds.map((keyId) => newEvent('UserDataKey', { wrappedKey: null }, origin(keyId), 'tasks')),
      newEvent('UserErasureRequested', { requestedBy: adminId }, origin(erasureId), 'tasks'),
    ];
    await outbox.addAll(
      trx,
      events.map((event) => ({ event, traceparent: traceparentFor(erasureId) })),
    );
    return { status: HttpStatus.ACCEPTED, body: (await erasureStatus(trx, erasureId, keyIds.length + inputs))!, replayed: false };
  });
}
