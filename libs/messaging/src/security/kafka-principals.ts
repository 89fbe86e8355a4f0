import { localAuthFiles } from '@app/auth';
import type { EventType } from '@app/events';
import { localPassword } from './secret-files';

/** Who talks to Kafka: one principal per service, the outside world, the auditor, the console, and admin. */
export const kafkaPrincipals = ['admin', 'tasks', 'quota', 'generation', 'notification', 'external', 'auditor', 'console'] as const;
export type KafkaPrincipal = (typeof kafkaPrincipals)[number];
export type ServicePrincipal = 'tasks' | 'quota' | 'generation' | 'notification';

/**
 * What each service writes and reads: its ACLs are exactly these (plus its own group and dead-letter
 * topic), and a service provisions nothing itself.
 */
export const serviceEvents: Record<ServicePrincipal, { produces: EventType[]; consumes: EventType[] }> = {
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
};

/** The outside world's topics: it requests and cancels, and reads outcomes and refusals. */
export const externalEvents = {
  produces: ['TaskRequested', 'TaskCancelRequested'] as EventType[],
  consumes: ['TaskCompleted', 'TaskFailed', 'TaskRejected', 'TaskCancelRejected'] as EventType[],
};

export interface KafkaCredentials {
  username: string;
  password: string;
}

/** The local stack's password for a principal, as `npm run stack:up` made it; undefined without a local stack. */
export function localKafkaCredentials(principal: KafkaPrincipal, stackDir?: string): KafkaCredentials | undefined {
  return localPassword(localAuthFiles(stackDir).kafkaCredentials, principal);
}

/** The environment a client of the local stack needs to connect as `principal`. */
export function localKafkaEnv(principal: KafkaPrincipal, stackDir?: string): Record<string, string> {
  const credentials = localKafkaCredentials(principal, stackDir);
  if (!credentials) return {};
  return { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_USERNAME: credentials.username, KAFKA_PASSWORD: credentials.password };
}
