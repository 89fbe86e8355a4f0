import { parseDuration } from '@app/timing';
import { defaultInputLimits, InputLimits } from './submit/request-limits';

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
  /** POST /tasks per user and second, and the burst above it. */
  userRateLimit: number;
  userRateBurst: number;
  /** Unfinished tasks a user may have at once. */
  userMaxOpenTasks: number;
  inputLimits: InputLimits;
}

export const TASKS_CONFIG = Symbol('TASKS_CONFIG');

export function loadTasksConfig(env: NodeJS.ProcessEnv = process.env): TasksConfig {
  const taskDeadlineMs = parseDuration(env.TASK_DEADLINE || '15m');
  const positive = (name: string, fallback: number) => {
    const value = Number(env[name] || fallback);
    if (!(value > 0)) throw new Error(`${name} must be a positive number, got "${env[name]}"`);
    return value;
  };
  // Simulation is on with the bundled simulator (no MODEL_BASE_URL of one's own), off otherwise.
  const simulation = (env.MODEL_SIMULATION || (env.MODEL_BASE_URL ? 'off' : 'on')) === 'on';
  return {
    idempotencyTtlMs: parseDuration(env.IDEMPOTENCY_TTL || '24h'),
    keyLockTimeoutMs: parseDuration(env.IDEMPOTENCY_LOCK_TIMEOUT || '2s'),
    taskDeadlineMs,
    taskDeadlineGraceMs: parseDuration(env.TASK_DEADLINE_GRACE || '5m'),
    deadlineCheckIntervalMs: parseDuration(env.TASK_DEADLINE_CHECK_INTERVAL || `${Math.min(60_000, Math.max(100, Math.round(taskDeadlineMs / 10)))}ms`),
    userRateLimit: positive('USER_RATE_LIMIT', 10),
    userRateBurst: positive('USER_RATE_BURST', 20),
    userMaxOpenTasks: Math.floor(positive('USER_MAX_OPEN_TASKS', 100)),
    inputLimits: { ...defaultInputLimits, simulation },
  };
}
