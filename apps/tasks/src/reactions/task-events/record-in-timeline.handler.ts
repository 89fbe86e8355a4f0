import type { DomainEvent } from '@app/events';
import type { BatchContext } from '@app/messaging';
import { applyToTasks } from '../../projection/apply-to-task';

/** Events that say something of tasks move their projections and join their timelines. */
export function recordInTimeline(events: DomainEvent[], { trx, outboxWriteOf }: BatchContext): Promise<void> {
  return applyToTasks(trx, events, outboxWriteOf);
}
