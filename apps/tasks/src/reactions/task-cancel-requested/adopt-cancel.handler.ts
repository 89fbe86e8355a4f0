import { causedBy, EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { applyToTask } from '../../projection/apply-to-task';
import { cancelTask, lockTaskToCancel } from '../../cancel/cancel-task';

/**
 * An outside TaskCancelRequested is decided as POST /tasks/{taskId}/cancel is: TaskCancelled when
 * the task, that user's, has no outcome yet; TaskCancelRejected otherwise (UNKNOWN_TASK for a task
 * that is not that user's, or not accepted: nothing of it is touched; ALREADY_ENDED, kept in the
 * task's timeline, when its outcome was recorded first).
 */
export async function adoptCancel(event: EventOf<'TaskCancelRequested'>, context: HandlerContext): Promise<void> {
  const { trx, publish } = context;
  const task = await lockTaskToCancel(trx, event.taskId);
  if (!task || task.user_id !== event.userId) {
    return publish(causedBy(event, 'TaskCancelRejected', { reason: 'UNKNOWN_TASK', state: null }));
  }
  const decision = await cancelTask(trx, task, event.userId, event.eventId, publish);
  if (decision.kind === 'already-ended') {
    const refusal = causedBy(event, 'TaskCancelRejected', { reason: 'ALREADY_ENDED', state: decision.task.state });
    await publish(refusal);
    await applyToTask(trx, refusal, publish);
  }
}
