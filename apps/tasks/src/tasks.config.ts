import { EnvReader } from '@app/config';
import type { PartnerLimits } from './partners/partner-limits';
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
  /** What all the users of a namespace (a partner's) may ask together, where an admin set nothing else. */
  partnerDefaults: PartnerLimits;
  inputLimits: InputLimits;
}

export const TASKS_CONFIG = Symbol('TASKS_CONFIG');

export function loadTasksConfig(env: NodeJS.ProcessEnv = process.env): TasksConfig {
  const read = new EnvReader(env, 'tasks');
  const taskDeadlineMs = read.duration('TASK_DEADLINE', '15m');
  // Simulation is on with the bundled simulator (no MODEL_BASE_URL of one's own), off otherwise.
  const simulation = read.flag('MODEL_SIMULATION', !env.MODEL_BASE_URL);
  return read.done({
    idempotencyTtlMs: read.duration('IDEMPOTENCY_TTL', '24h'),
    keyLockTimeoutMs: read.duration('IDEMPOTENCY_LOCK_TIMEOUT', '2s'),
    taskDeadlineMs,
    taskDeadlineGraceMs: read.duration('TASK_DEADLINE_GRACE', '5m'),
    deadlineCheckIntervalMs: read.duration('TASK_DEADLINE_CHECK_INTERVAL', `${Math.min(60_000, Math.max(100, Math.round(taskDeadlineMs / 10)))}ms`),
    userRateLimit: read.positive('USER_RATE_LIMIT', 10),
    userRateBurst: read.positive('USER_RATE_BURST', 20),
    userMaxOpenTasks: Math.floor(read.positive('USER_MAX_OPEN_TASKS', 100)),
    partnerDefaults: {
      maxOpenTasks: Math.floor(read.positive('PARTNER_MAX_OPEN_TASKS', 1000)),
      rateLimit: read.positive('PARTNER_RATE_LIMIT', 50),
      rateBurst: Math.floor(read.positive('PARTNER_RATE_BURST', 100)),
    },
    inputLimits: { ...defaultInputLimits, maxBytes: read.bytes('HTTP_BODY_LIMIT', '64kb'), simulation },
  });
}
