import { decideAfterAttempt } from './attempt-outcome.rules';

const transient = { ok: false as const, code: 'MODEL_UNAVAILABLE' as const, retriable: true, message: '503' };
const permanent = { ok: false as const, code: 'MODEL_REJECTED' as const, retriable: false, message: '400' };
const delays = [5000, 30_000, 120_000];

describe('what follows an attempt', () => {
  it('retries a transient failure after the delay of that attempt, within ±20 %', () => {
    expect(decideAfterAttempt(transient, 1, delays, 0.2, () => 0.5)).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(decideAfterAttempt(transient, 2, delays, 0.2, () => 0)).toEqual({ kind: 'retry', delayMs: 24_000 });
    expect(decideAfterAttempt(transient, 3, delays, 0.2, () => 0.999999)).toEqual({ kind: 'retry', delayMs: 144_000 });
  });

  it('gives up once every delay is spent: 3 delays mean 4 attempts', () => {
    expect(decideAfterAttempt(transient, 4, delays, 0.2)).toEqual({ kind: 'failed', errorClass: 'RETRIES_EXHAUSTED' });
    expect(decideAfterAttempt(transient, 1, [], 0.2)).toEqual({ kind: 'failed', errorClass: 'RETRIES_EXHAUSTED' });
  });

  it('never retries a permanent failure', () => {
    expect(decideAfterAttempt(permanent, 1, delays, 0.2)).toEqual({ kind: 'failed', errorClass: 'PERMANENT' });
  });

  it('ends on success', () => {
    expect(decideAfterAttempt({ ok: true, content: '#' }, 2, delays, 0.2)).toEqual({ kind: 'succeeded' });
  });
});
