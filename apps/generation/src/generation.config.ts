import * as path from 'node:path';
import { parseDuration, parseDurations } from '@app/timing';

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
  /** Of those, how many one user may hold. */
  maxPerUser: number;
}

export const GENERATION_CONFIG = Symbol('GENERATION_CONFIG');

export function loadGenerationConfig(env: NodeJS.ProcessEnv = process.env): GenerationConfig {
  const delays = env.GENERATION_RETRY_DELAYS ?? '5s,30s,2m';
  const count = (name: string, fallback: number) => {
    const value = env[name] ? Number(env[name]) : fallback;
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${env[name]}"`);
    return value;
  };
  const concurrency = count('GENERATION_CONCURRENCY', 4);
  return {
    modelBaseUrl: (env.MODEL_BASE_URL || 'http://127.0.0.1:3010').replace(/\/$/, ''),
    modelTimeoutMs: parseDuration(env.MODEL_TIMEOUT || '30s'),
    modelApiKey: env.MODEL_API_KEY || undefined,
    modelName: env.MODEL_NAME || 'report-writer',
    modelMaxResponseBytes: count('MODEL_MAX_RESPONSE_BYTES', 4 * 1024 * 1024),
    retryDelaysMs: delays.trim() === '' ? [] : parseDurations(delays),
    retryJitter: 0.2,
    pollIntervalMs: parseDuration(env.GENERATION_POLL_INTERVAL || '500ms'),
    reportsDir: path.resolve(env.REPORTS_DIR || '.data/reports'),
    reconcileDeadlineMs: parseDuration(env.RECONCILE_DEADLINE || '30m'),
    reconcileIntervalMs: parseDuration(env.RECONCILE_INTERVAL || '1m'),
    concurrency,
    maxPerUser: Math.min(concurrency, count('GENERATION_MAX_PER_USER', Math.max(1, Math.floor(concurrency / 2)))),
  };
}
