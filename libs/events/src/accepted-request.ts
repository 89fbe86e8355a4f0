import type { TaskRequested } from './generated/event-types';

/** The service that accepts requests: it issues them (POST /tasks) or adopts outside ones. */
export const requestAcceptor = 'tasks';

/**
 * Quota and generation act only on requests the tasks service issued or adopted. An outside
 * TaskRequested reaches them through tasks, which alone decides whether its idempotency key was
 * used before — a decision that must be taken in one place, since copies of one request under
 * different taskIds land on different partitions and reach each consumer in its own order.
 */
export function isAcceptedRequest(event: TaskRequested): boolean {
  return event.producer === requestAcceptor;
}
