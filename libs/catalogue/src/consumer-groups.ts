import type { EventType } from '@app/events';
import { ServicePrincipal, serviceEvents } from './catalogue';

/**
 * What a service reads that no task's outcome waits on: its timeline, the settling of a debit, the
 * refunds of cancelled and timed-out tasks (their outcome is already out), erasures. These are read in
 * a group of their own that fetches lazily (a batch fills or a short wait ends), so that a busy
 * timeline does not sit in front of the hops an outcome waits on (TaskAccepted → QuotaDebited →
 * GenerationSucceeded → TaskCompleted; a failed generation's refund before TaskFailed), which the
 * service's own group reads eagerly.
 */
export const bookkeepingEvents: Record<ServicePrincipal, EventType[]> = {
  tasks: ['QuotaDebited', 'GenerationStarted', 'GenerationRetryScheduled', 'NotificationSent', 'UserDataErased'],
  quota: ['GenerationSucceeded', 'TaskTimedOut', 'TaskCancelled', 'UserErasureRequested'],
  generation: [],
  notification: [],
};

/** One of a service's consumer groups: its name behind the topic prefix, and the events it reads. */
export interface ConsumerGroup {
  group: string;
  reads: EventType[];
  /** Fetches lazily, shares the service's inbox and dead letters, and takes no re-drive requests. */
  bookkeeping: boolean;
}

/** The service's groups: its own (named as the service, every dead letter's and re-drive's) and, when it has any, its bookkeeping's. */
export function consumerGroupsOf(service: ServicePrincipal): ConsumerGroup[] {
  const lazy = bookkeepingEvents[service];
  const eager = serviceEvents[service].consumes.filter((type) => !lazy.includes(type));
  const own = { group: service, reads: eager, bookkeeping: false };
  return lazy.length === 0 ? [own] : [own, { group: `${service}.bookkeeping`, reads: lazy, bookkeeping: true }];
}
