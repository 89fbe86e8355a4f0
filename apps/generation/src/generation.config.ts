import * as path from 'node:path';
import { parseDuration, parseDurations } from '@app/messaging';

export interface GenerationConfig {
  modelBaseUrl: string;
  modelTimeoutMs: number;
  /** One delay per retry: their count is the number of retries. */
  retryDelaysMs: number[];
  /** ±20 % by default. */
  retryJitter: number;
  pollIntervalMs: number;
  reportsDir: string;
  /** A debited task with no outcome after this long is failed by the reconciler (and so refunded). */
  reconcileDeadlineMs: number;
  reconcileIntervalMs: number;
}

export const GENERATION_CONFIG = Symbol('GENERATION_CONFIG');

export function loadGenerationConfig(env: NodeJS.ProcessEnv = process.env): GenerationConfig {
  const delays = env.GENERATION_RETRY_DELAYS ?? '5s,30s,2m';
  return {
    modelBaseUrl: (env.MODEL_BASE_URL || 'http://127.0.0.1:3010').replace(/\/$/, ''),
    modelTimeoutMs: parseDuration(env.MODEL_TIMEOUT || '30s'),
    retryDelaysMs: delays.trim() === '' ? [] : parseDurations(delays),
    retryJitter: 0.2,
    pollIntervalMs: parseDuration(env.GENERATION_POLL_INTERVAL || '500ms'),
    reportsDir: path.resolve(env.REPORTS_DIR || '.data/reports'),
    reconcileDeadlineMs: parseDuration(env.RECONCILE_DEADLINE || '30m'),
    reconcileIntervalMs: parseDuration(env.RECONCILE_INTERVAL || '1m'),
  };
}
