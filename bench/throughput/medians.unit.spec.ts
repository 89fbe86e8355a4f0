import { mediansOf } from './medians';

describe('the medians of benchmark runs', () => {
  it('takes each number’s median across runs, key by key, keeping what is not a number from the first', () => {
    const runs = [
      { tasksPerSecond: 50, halfLoad: { p50: 60, p99: 240 }, machine: 'a' },
      { tasksPerSecond: 40, halfLoad: { p50: 90, p99: 180 }, machine: 'b' },
      { tasksPerSecond: 45, halfLoad: { p50: 70, p99: 300 }, machine: 'c' },
    ];
    expect(mediansOf(runs)).toEqual({ tasksPerSecond: 45, halfLoad: { p50: 70, p99: 240 }, machine: 'a' });
  });

  it('takes the lower middle of an even count', () => {
    expect(mediansOf([4, 1, 3, 2])).toBe(2);
  });
});
