import { parseDuration } from '@app/messaging';

export interface TasksConfig {
  /** How long an Idempotency-Key is remembered. */
  idempotencyTtlMs: number;
  /** How long a request waits for another request holding the same key before answering 409. */
  keyLockTimeoutMs: number;
  /** A task with no outcome this long after it was created has its request published again. */
  taskDeadlineMs: number;
  /** And this long after that, still without an outcome, it is timed out. */
  taskDeadlineGraceMs: number;
  /** How often the deadline watcher looks. */
  deadlineCheckIntervalMs: number;
}

export const TASKS_CONFIG = Symbol('TASKS_CONFIG');

export function loadTasksConfig(env: NodeJS.ProcessEnv = process.env): TasksConfig {
  const taskDeadlineMs = parseDuration(env.TASK_DEADLINE || '15m');
  return {
    idempotencyTtlMs: parseDuration(env.IDEMPOTENCY_TTL || '24h'),
    keyLockTimeoutMs: parseDuration(env.IDEMPOTENCY_LOCK_TIMEOUT || '2s'),
    taskDeadlineMs,
    taskDeadlineGraceMs: parseDuration(env.TASK_DEADLINE_GRACE || '5m'),
    deadlineCheckIntervalMs: parseDuration(env.TASK_DEADLINE_CHECK_INTERVAL || `${Math.min(60_000, Math.max(100, Math.round(taskDeadlineMs / 10)))}ms`),
  };
}
