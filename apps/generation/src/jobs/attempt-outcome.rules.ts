import { withJitter } from '@app/timing';
import type { ModelOutcome } from '../model/model-outcome.rules';

export type AttemptDecision = { kind: 'succeeded' } | { kind: 'retry'; delayMs: number } | { kind: 'failed'; errorClass: 'PERMANENT' | 'RETRIES_EXHAUSTED' };

/**
 * After attempt n: a transient failure is retried after the n-th delay (with jitter) while delays
 * remain; a permanent one, or a transient one with no delay left, ends the job.
 */
export function decideAfterAttempt(outcome: ModelOutcome, attempt: number, delaysMs: number[], jitter: number, random = Math.random): AttemptDecision {
  if (outcome.ok) return { kind: 'succeeded' };
  if (!outcome.retriable) return { kind: 'failed', errorClass: 'PERMANENT' };
  if (attempt > delaysMs.length) return { kind: 'failed', errorClass: 'RETRIES_EXHAUSTED' };
  return { kind: 'retry', delayMs: withJitter(delaysMs[attempt - 1], jitter, random) };
}
