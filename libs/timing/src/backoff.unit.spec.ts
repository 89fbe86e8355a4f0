import { exponentialDelay, parseDuration, parseDurations, withJitter } from './backoff';

describe('exponentialDelay', () => {
  const policy = { initialMs: 100, maxMs: 1000, jitter: 0 };

  it('doubles from the initial delay and stops at the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => exponentialDelay(attempt, policy))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('spreads each delay over ±jitter, from its lowest to its highest value', () => {
    const jittered = { ...policy, jitter: 0.2 };
    expect(exponentialDelay(3, jittered, () => 0)).toBe(320);
    expect(exponentialDelay(3, jittered, () => 0.5)).toBe(400);
    expect(exponentialDelay(3, jittered, () => 0.999999)).toBe(480);
  });
});

describe('withJitter', () => {
  it('stays within its bounds for any random draw', () => {
    for (let i = 0; i <= 100; i++) {
      const delay = withJitter(5000, 0.2, () => i / 100);
      expect(delay).toBeGreaterThanOrEqual(4000);
      expect(delay).toBeLessThanOrEqual(6000);
    }
  });
});

describe('parseDurations', () => {
  it('reads the default retry schedule', () => {
    expect(parseDurations('5s,30s,2m')).toEqual([5000, 30_000, 120_000]);
    expect(parseDurations('50ms, 0.5s ,1h')).toEqual([50, 500, 3_600_000]);
  });

  it('names the part it cannot read', () => {
    expect(() => parseDurations('5s,soon')).toThrow('"soon" is not a duration');
    expect(() => parseDuration('-5s')).toThrow('"-5s" is not a duration');
  });
});
