import { causedBy, EventOf, requestAcceptor } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { applyToTask } from '../projection/apply-to-task';
import { TasksConfig } from '../tasks.config';
import { claimKey } from './claim-key';
import { requestHash } from './request-hash';
import { checkInput } from './request-limits';
import { lockUser, openTasksOf } from './user-limits';

/** Outside requests have their own key scope, apart from POST /tasks. */
const route = 'kafka task-requested';

function parsedInput(input: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(input);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An outside TaskRequested is adopted — its TaskAccepted, written by tasks alone, is what quota and
 * generation act on — unless its idempotency key was used before: the same request under another
 * taskId is a DUPLICATE, other content under the same key is KEY_REUSED; an input past the limits of
 * POST /tasks is refused by its code (INPUT_TOO_DEEP, INPUT_TOO_LARGE, UNSTORABLE_TEXT,
 * SIMULATION_OFF), and so is a user with too many unfinished tasks (TOO_MANY_OPEN_TASKS); each is
 * answered with TaskRejected. Nothing in the payload is taken on trust: a request for a task that
 * already exists changes nothing, whoever it claims to come from.
 */
export async function handleTaskRequested(event: EventOf<'TaskRequested'>, context: HandlerContext, config: TasksConfig): Promise<void> {
  const { trx, publish } = context;
  if (await trx('tasks').where({ task_id: event.taskId }).first()) return acceptLegacyRequest(event, context);

  const reject = (reason: string) => publish(causedBy(event, 'TaskRejected', { reason, idempotencyKey: event.idempotencyKey }, requestAcceptor));
  const input = parsedInput(event.input);
  if (!input) return reject('INVALID_INPUT');
  // The same limits as POST /tasks: an outside producer is no more trusted than an HTTP caller.
  const refusal = checkInput(input, config.inputLimits);
  if (refusal) return reject(refusal.code);
  await lockUser(trx, event.userId);
  if ((await openTasksOf(trx, event.userId)) >= config.userMaxOpenTasks) return reject('TOO_MANY_OPEN_TASKS');
  if (event.idempotencyKey) {
    const hash = requestHash({ userId: event.userId, reportType: event.reportType, input });
    const scope = { user_id: event.userId, route, key: event.idempotencyKey };
    const earlier = await claimKey(trx, scope, hash, event.taskId, config.idempotencyTtlMs);
    if (earlier) return reject(earlier.request_hash === hash ? 'DUPLICATE' : 'KEY_REUSED');
  }
  await applyToTask(trx, event, publish);
  const accepted = acceptanceOf(event);
  await publish(accepted);
  await applyToTask(trx, accepted, publish);
}

/**
 * The upgrade from the scheme where tasks wrote accepted requests to `task-requested`: such a request
 * is already in its task's timeline (tasks applied it when it wrote it), yet quota and generation now
 * act on TaskAccepted only. Seeing it come back, tasks accepts it once more, on `task-accepted`. What
 * identifies it is our own timeline holding this very event, never a field of the payload.
 */
async function acceptLegacyRequest(event: EventOf<'TaskRequested'>, { trx, publish }: HandlerContext): Promise<void> {
  const timeline = await trx('task_timeline').where({ task_id: event.taskId }).select('event_id', 'event_type');
  const ownRequest = timeline.some((e) => e.event_id === event.eventId);
  const accepted = timeline.some((e) => e.event_type === 'TaskAccepted');
  if (!ownRequest || accepted) return;
  const acceptance = acceptanceOf(event);
  await publish(acceptance);
  await applyToTask(trx, acceptance, publish);
}

/** The platform's acceptance of a request: the same task and content, caused by it, written by tasks. */
export function acceptanceOf(request: EventOf<'TaskRequested'>): EventOf<'TaskAccepted'> {
  return causedBy(request, 'TaskAccepted', { idempotencyKey: request.idempotencyKey, reportType: request.reportType, input: request.input }, requestAcceptor);
}
