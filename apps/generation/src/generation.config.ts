import * as path from 'node:path';
import { EnvReader } from '@app/config';

export interface GenerationConfig {
  modelBaseUrl: string;
  modelTimeoutMs: number;
  /** Sent as `Authorization: Bearer`, when set. */
  modelApiKey?: string;
  modelName: string;
  /** An answer longer than this is not read to its end: the attempt fails as INVALID_OUTPUT. */
  modelMaxResponseBytes: number;
  /** One delay per retry: their count is the number of retries. */
  retryDelaysMs: number[];
  /** ±20 % by default. */
  retryJitter: number;
  pollIntervalMs: number;
  reportsDir: string;
  /** A debited task with no outcome after this long is failed by the reconciler (and so refunded). */
  reconcileDeadlineMs: number;
  reconcileIntervalMs: number;
  /** Attempts one instance runs at once. */
  concurrency: number;
  /** Of those, how many one user may hold (across instances, unless an admin set their share). */
  maxPerUser: number;
  /** The last free slots of an instance, kept for users who run nothing yet. */
  keptForNewcomers: number;
}

export const GENERATION_CONFIG = Symbol('GENERATION_CONFIG');

export function loadGenerationConfig(env: NodeJS.ProcessEnv = process.env): GenerationConfig {
  const read = new EnvReader(env, 'generation');
  // A model call is a wait, not work: 16 at once keep a fast model's answers from queueing behind a
  // slot (4 held saturation to two thirds with an instant model) and stay far below a provider's limits.
  const concurrency = read.integer('GENERATION_CONCURRENCY', 16, { min: 1, max: 1000 });
  const maxPerUser = read.integer('GENERATION_MAX_PER_USER', Math.max(1, Math.floor(concurrency / 2)), { min: 1, max: 1000 });
  return read.done({
    modelBaseUrl: read.text('MODEL_BASE_URL', 'http://127.0.0.1:3010').replace(/\/$/, ''),
    modelTimeoutMs: read.duration('MODEL_TIMEOUT', '30s'),
    modelApiKey: read.optionalText('MODEL_API_KEY'),
    modelName: read.text('MODEL_NAME', 'report-writer'),
    modelMaxResponseBytes: read.integer('MODEL_MAX_RESPONSE_BYTES', 4 * 1024 * 1024, { min: 1024 }),
    retryDelaysMs: read.durations('GENERATION_RETRY_DELAYS', '5s,30s,2m'),
    retryJitter: 0.2,
    pollIntervalMs: read.duration('GENERATION_POLL_INTERVAL', '500ms'),
    reportsDir: path.resolve(read.text('REPORTS_DIR', '.data/reports')),
    reconcileDeadlineMs: read.duration('RECONCILE_DEADLINE', '30m'),
    reconcileIntervalMs: read.duration('RECONCILE_INTERVAL', '1m'),
    concurrency,
    maxPerUser: Math.min(concurrency, maxPerUser),
    // So that a quiet user's task starts at once while busy users hold every other slot.
    keptForNewcomers: read.integer('GENERATION_KEPT_FOR_NEWCOMERS', Math.min(concurrency - 1, Math.max(1, Math.floor(concurrency / 8))), {
      min: 0,
      max: concurrency - 1,
    }),
  });
}
