import type { Knex } from 'knex';
import { causedBy, EventOf } from '@app/events';
import { mayActFor, namespaceOf, partnerTopicFor } from '@app/catalogue';
import type { HandlerContext } from '@app/messaging';
import { applyToTask } from '../../projection/apply-to-task';
import { acceptanceOf } from '../../submit/acceptance';
import { AdoptionFacts, decideAdoption, KeyHolder, TaskSeen } from './adoption.rules';
import { claimKey, KeyScope } from '../../submit/claim-key';
import { requestHash } from '../../submit/request-hash';
import { checkInput, inputTooLarge } from '../../submit/request-limits';
import { sealInput } from '../../submit/seal-input';
import { PersonalData } from '@app/personal-data';
import { limitsOf, partnerSlots, takePartnerToken } from '../../partners/partner-limits';
import { lockUser, openTaskSlotsReleased, openTasksOf, takeOpenTaskSlot, userSlots } from '../../submit/user-limits';
import { TasksConfig } from '../../tasks.config';

/** Outside requests have their own key scope, apart from POST /tasks. */
const route = 'kafka task-requested';

/**
 * An outside TaskRequested is adopted — its TaskAccepted, written by tasks alone, is what quota and
 * generation act on — or answered with TaskRejected, as adoption.rules decides. The user's lock is
 * taken before the open tasks are counted and the key looked up, so two requests of one user are
 * decided one after the other, on every instance. A request from a partner (its own topic) for a
 * user outside its namespace, or on the shared topic for a user outside `external:` (an HTTP user, a
 * partner's), is refused before anything is locked: NOT_YOUR_USER. Refusals go to the partner that asked, on its topic too.
 */
export async function adoptRequest(
  event: EventOf<'TaskRequested'>,
  context: HandlerContext,
  config: TasksConfig,
  personal: PersonalData,
  partner?: string,
): Promise<void> {
  const { trx } = context;
  const refuse = (reason: string) =>
    context.publish(
      causedBy(event, 'TaskRejected', { reason, idempotencyKey: event.idempotencyKey }),
      partner ? [partnerTopicFor(partner, 'TaskRejected')] : [],
    );
  // Tasks' own request of the former scheme, for an HTTP user, is the one request of the shared topic
  // that may name a user outside external: — known by our timeline holding this very event.
  const ownRequest = !partner && (await taskSeen(trx, event)) === 'own-request-unaccepted';
  if (!mayActFor(partner, event.userId) && !ownRequest) return refuse('NOT_YOUR_USER');
  const { publish } = context;
  // The same limits as POST /tasks, bytes first: an outside producer is no more trusted than an HTTP caller.
  const oversized = inputTooLarge(event.input, config.inputLimits);
  const input = oversized ? undefined : parsedInput(event.input);
  const inputRefusal = oversized?.code ?? (input ? checkInput(input, config.inputLimits)?.code : 'INVALID_INPUT');
  // Hashed only once within the limits (a too deep input is refused, never walked).
  const hash = input && !inputRefusal ? requestHash({ userId: event.userId, reportType: event.reportType, input }) : undefined;
  const scope: KeyScope | undefined = event.idempotencyKey ? { user_id: event.userId, route, key: event.idempotencyKey } : undefined;
  await lockUser(trx, event.userId);
  const facts: AdoptionFacts = {
    task: await taskSeen(trx, event),
    inputRefusal,
    openTasks: await openTasksOf(trx, event.userId),
    maxOpenTasks: config.userMaxOpenTasks,
    key: scope && hash ? await keyHolder(trx, scope, hash) : 'no-key',
  };
  const adoption = decideAdoption(facts);
  switch (adoption.kind) {
    case 'ignore':
      return;
    case 'reject':
      return refuse(adoption.reason);
    case 'accept-again':
      return accept(await sealed(event, context, personal), context);
    case 'accept': {
      const refusal = await takeShares(trx, event.userId, config);
      if (refusal) return refuse(refusal);
      if (scope && hash && (await claimKey(trx, scope, hash, event.taskId, config.idempotencyTtlMs))) {
        throw new Error(`idempotency key ${scope.key} of ${event.userId} was claimed while the user was locked`);
      }
      const request = await sealed(event, context, personal);
      await applyToTask(trx, request, publish);
      return accept(request, context);
    }
  }
}

/**
 * The request's share of what its user and its namespace may ask, taken; or why it is refused. The
 * namespace's token first: a request refused for want of a slot was asked all the same. A user's
 * slot taken and its namespace's not is given back, as the refusal commits. The namespace's rows stay
 * locked until the batch commits: its other requests, on another instance, wait for that (and where
 * they hold a user's lock this batch needs, PostgreSQL breaks the circle; the batch is tried again).
 */
async function takeShares(trx: Knex.Transaction, userId: string, config: TasksConfig): Promise<string | undefined> {
  const partner = namespaceOf(userId);
  const limits = partner === undefined ? undefined : await limitsOf(trx, partner, config.partnerDefaults);
  if (partner && limits && (await takePartnerToken(trx, partner, limits)) !== undefined) return 'PARTNER_RATE_LIMITED';
  // POST /tasks takes slots without the user's lock: the count read before may be one short.
  if (!(await takeOpenTaskSlot(trx, userSlots, userId, config.userMaxOpenTasks))) return 'TOO_MANY_OPEN_TASKS';
  if (partner && limits && !(await takeOpenTaskSlot(trx, partnerSlots, partner, limits.maxOpenTasks))) {
    await openTaskSlotsReleased(trx, userSlots, new Map([[userId, 1]]));
    return 'PARTNER_TOO_MANY_OPEN_TASKS';
  }
  return undefined;
}

/**
 * The request as the task keeps it: its input sealed (the outside producer wrote it in clear, on a
 * topic with a bounded retention; the timeline and the acceptance keep it for good).
 */
async function sealed(event: EventOf<'TaskRequested'>, { trx, publish }: HandlerContext, personal: PersonalData): Promise<EventOf<'TaskRequested'>> {
  const { sealed: input, keyIssued } = await sealInput(trx, personal, event.input, { ...event, causationId: event.eventId });
  if (keyIssued) await publish(keyIssued);
  return { ...event, input };
}

async function accept(event: EventOf<'TaskRequested'>, { trx, publish }: HandlerContext): Promise<void> {
  const acceptance = acceptanceOf(event);
  await publish(acceptance);
  await applyToTask(trx, acceptance, publish);
}

/**
 * The upgrade from the scheme where tasks wrote accepted requests to `task-requested`: such a request
 * is already in its task's timeline (tasks applied it when it wrote it). What identifies it is our
 * own timeline holding this very event, never a field of the payload.
 */
async function taskSeen(trx: Knex.Transaction, event: EventOf<'TaskRequested'>): Promise<TaskSeen> {
  if (!(await trx('tasks').where({ task_id: event.taskId }).first())) return 'new';
  const timeline: Array<{ event_id: string; event_type: string }> = await trx('task_timeline')
    .where({ task_id: event.taskId })
    .select('event_id', 'event_type');
  const ownRequest = timeline.some((e) => e.event_id === event.eventId);
  const accepted = timeline.some((e) => e.event_type === 'TaskAccepted');
  return ownRequest && !accepted ? 'own-request-unaccepted' : 'known';
}

/** Who holds the key now (an expired claim holds nothing; claimKey forgets it when it claims). */
async function keyHolder(trx: Knex.Transaction, scope: KeyScope, hash: string): Promise<KeyHolder> {
  const earlier = await trx('idempotency_keys').where(scope).where('expires_at', '>=', trx.fn.now()).first();
  if (!earlier) return 'free';
  return earlier.request_hash === hash ? 'same-request' : 'other-request';
}

function parsedInput(input: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(input);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
