import { parseDuration } from '@app/messaging';

export interface TasksConfig {
  /** How long an Idempotency-Key is remembered. */
  idempotencyTtlMs: number;
  /** How long a request waits for another request holding the same key before answering 409. */
  keyLockTimeoutMs: number;
}

export const TASKS_CONFIG = Symbol('TASKS_CONFIG');

export function loadTasksConfig(env: NodeJS.ProcessEnv = process.env): TasksConfig {
  return {
    idempotencyTtlMs: parseDuration(env.IDEMPOTENCY_TTL || '24h'),
    keyLockTimeoutMs: parseDuration(env.IDEMPOTENCY_LOCK_TIMEOUT || '2s'),
  };
}
