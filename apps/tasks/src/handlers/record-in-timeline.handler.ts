import type { DomainEvent } from '@app/events';
import type { HandlerContext } from '@app/messaging';
import { applyToTask } from '../projection/apply-to-task';

/** An event that says something of a task moves its projection and joins its timeline. */
export function recordInTimeline(event: DomainEvent, { trx, publish }: HandlerContext): Promise<void> {
  return applyToTask(trx, event, publish);
}
