import type { EventType } from '@app/events';

/**
 * Who talks to Kafka: one principal per service, the outside world, the auditor, the console, and
 * admin. With `catalogue` below (which events each service and the outside world write and read),
 * the platform's catalogue: provisioning grants exactly these as ACLs, the tests subscribe from them,
 * the AsyncAPI document is rendered from them.
 */
export const kafkaPrincipals = ['admin', 'tasks', 'quota', 'generation', 'notification', 'external', 'auditor', 'console'] as const;
export type KafkaPrincipal = (typeof kafkaPrincipals)[number];
export type ServicePrincipal = 'tasks' | 'quota' | 'generation' | 'notification';

/**
 * What each service writes and reads: its ACLs are exactly these (plus its own group and dead-letter
 * topic), and a service provisions nothing itself.
 */
const catalogue = {
  tasks: {
    produces: [
      'TaskAccepted',
      'TaskRejected',
      'TaskCompleted',
      'TaskFailed',
      'TaskTimedOut',
      'TaskCancelled',
      'TaskCancelRejected',
      'UserDataKey',
      'UserErasureRequested',
    ],
    consumes: [
      'TaskRequested',
      'TaskCancelRequested',
      'QuotaDebited',
      'QuotaRejected',
      'GenerationStarted',
      'GenerationRetryScheduled',
      'GenerationSucceeded',
      'GenerationFailed',
      'QuotaRefunded',
      'NotificationSent',
      'UserDataErased',
    ],
  },
  quota: {
    produces: ['QuotaDebited', 'QuotaRejected', 'QuotaRefunded', 'UserDataErased'],
    consumes: ['TaskAccepted', 'GenerationSucceeded', 'GenerationFailed', 'TaskTimedOut', 'TaskCancelled', 'UserErasureRequested'],
  },
  generation: {
    produces: ['GenerationStarted', 'GenerationRetryScheduled', 'GenerationSucceeded', 'GenerationFailed', 'UserDataErased'],
    consumes: ['TaskAccepted', 'QuotaDebited', 'QuotaRejected', 'TaskTimedOut', 'TaskCancelled', 'UserDataKey', 'UserErasureRequested'],
  },
  notification: { produces: ['NotificationSent', 'UserDataErased'], consumes: ['TaskCompleted', 'TaskFailed', 'UserErasureRequested'] },
} as const satisfies Record<ServicePrincipal, ServiceEvents>;

export interface ServiceEvents {
  produces: readonly EventType[];
  consumes: readonly EventType[];
}

export const serviceEvents: Record<ServicePrincipal, ServiceEvents> = catalogue;

/**
 * The events `S` consumes, as a type: a service's handler map is typed from it (@app/messaging's
 * HandlersOf), so that an event added here must be handled, and one not here cannot be.
 */
export type ConsumedBy<S extends ServicePrincipal> = (typeof catalogue)[S]['consumes'][number];

/** The outside world's topics: it requests and cancels, and reads outcomes and refusals. */
export const externalEvents = {
  produces: ['TaskRequested', 'TaskCancelRequested'] as EventType[],
  consumes: ['TaskCompleted', 'TaskFailed', 'TaskRejected', 'TaskCancelRejected'] as EventType[],
};

/** Where a consumer group puts what it could not handle. */
export function deadLetterTopicFor(groupId: string): string {
  return `${groupId}.dlq`;
}

/** Each re-drive of a dead letter of `groupId`: what, by whom, when, and how its handling ended; written by the group's service. */
export function redriveLogTopic(groupId: string): string {
  return `${deadLetterTopicFor(groupId)}.redrives`;
}

/**
 * Where an operator asks `groupId`'s service to handle its dead letters again (npm run dlq, the
 * console): the service reads the letters from its own dead-letter topic, so what is asked for can
 * only be what it dead-lettered.
 */
export function redriveRequestTopic(groupId: string): string {
  return `${deadLetterTopicFor(groupId)}.redrive-requests`;
}
