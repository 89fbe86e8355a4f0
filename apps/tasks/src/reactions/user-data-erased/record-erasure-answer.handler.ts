import { EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { answeringServices } from '../../erasure/erasure-status';

/** A service's answer to an erasure: kept once (redelivered, it is the same answer); one from no such service is ignored. */
export async function recordErasureAnswer(event: EventOf<'UserDataErased'>, { trx }: HandlerContext): Promise<void> {
  if (!(answeringServices as readonly string[]).includes(event.service)) return;
  const known = await trx('user_erasures').where({ erasure_id: event.taskId, user_id: event.userId }).first();
  if (!known) return;
  await trx('user_erasure_answers')
    .insert({ erasure_id: event.taskId, service: event.service, erased: event.erased, answered_at: new Date(event.occurredAt) })
    .onConflict(['erasure_id', 'service'])
    .ignore();
}
