import { nestedDeeperThan } from './request-hygiene.interceptor';

describe('nestedDeeperThan', () => {
  const arrays = (levels: number) => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`) as unknown;

  it('counts levels of arrays and objects alike, at any position', () => {
    expect(nestedDeeperThan(arrays(64), 64)).toBe(false);
    expect(nestedDeeperThan(arrays(65), 64)).toBe(true);
    expect(nestedDeeperThan({ a: 1, b: [{ c: arrays(63) }] }, 64)).toBe(true);
    expect(nestedDeeperThan({ a: 'text', b: [1, 2, { c: null }] }, 64)).toBe(false);
    expect(nestedDeeperThan(undefined, 64)).toBe(false);
  });

  it('walks 32,000 levels without recursion', () => {
    expect(nestedDeeperThan(arrays(32_000), 64)).toBe(true);
  });
});
