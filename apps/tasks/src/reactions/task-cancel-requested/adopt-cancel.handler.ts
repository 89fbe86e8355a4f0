import { causedBy, EventOf } from '@app/events';
import { mayActFor, partnerTopicFor } from '@app/catalogue';
import type { HandlerContext } from '@app/messaging';
import { applyToTask } from '../../projection/apply-to-task';
import { cancelTask, lockTaskToCancel } from '../../cancel/cancel-task';

/**
 * An outside TaskCancelRequested is decided as POST /tasks/{taskId}/cancel is: TaskCancelled when
 * the task, that user's, has no outcome yet; TaskCancelRejected otherwise (UNKNOWN_TASK for a task
 * that is not that user's, or not accepted: nothing of it is touched; ALREADY_ENDED, kept in the
 * task's timeline, when its outcome was recorded first). A cancel from a partner for a user outside
 * its namespace (or on the shared topic for a user outside `external:`) is NOT_YOUR_USER before any task is
 * read; refusals go to the partner that asked, on its topic too.
 */
export async function adoptCancel(event: EventOf<'TaskCancelRequested'>, context: HandlerContext, partner?: string): Promise<void> {
  const { trx, publish } = context;
  const toRequester = partner ? [partnerTopicFor(partner, 'TaskCancelRejected')] : [];
  if (!mayActFor(partner, event.userId)) {
    return publish(causedBy(event, 'TaskCancelRejected', { reason: 'NOT_YOUR_USER', state: null }), toRequester);
  }
  const task = await lockTaskToCancel(trx, event.taskId);
  if (!task || task.user_id !== event.userId) {
    return publish(causedBy(event, 'TaskCancelRejected', { reason: 'UNKNOWN_TASK', state: null }), toRequester);
  }
  const decision = await cancelTask(trx, task, event.userId, event.eventId, publish);
  if (decision.kind === 'already-ended') {
    const refusal = causedBy(event, 'TaskCancelRejected', { reason: 'ALREADY_ENDED', state: decision.task.state });
    await publish(refusal, toRequester);
    await applyToTask(trx, refusal, publish);
  }
}
