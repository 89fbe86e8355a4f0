import { setTimeout as sleep } from 'node:timers/promises';

export interface RetryPolicy {
  /** At most this many tries, the first included. */
  attempts: number;
  /** How long to wait after failed attempt `attempt` (from 1) before the next; none when absent. */
  delayMs?: (attempt: number) => number;
  /** Whether a failure is worth another try; every failure is when absent. */
  retryable?: (error: unknown) => boolean;
  /** Told of each failure that will be tried again (to log it), with the wait before the next try. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * `work` until it succeeds, tried again after a failure the policy calls retryable while attempts
 * are left; the last failure, or the first that is not retryable, is thrown as it is.
 */
export async function retry<T>(work: (attempt: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      if (attempt >= policy.attempts || !(policy.retryable?.(error) ?? true)) throw error;
      const delayMs = policy.delayMs?.(attempt) ?? 0;
      policy.onRetry?.(error, attempt, delayMs);
      if (delayMs > 0) await sleep(delayMs);
    }
  }
}
