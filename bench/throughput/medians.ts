/**
 * The median of each number across `runs` of the same shape (an odd count gives a figure one run
 * measured): objects are walked key by key, anything but a number is the first run's.
 */
export function mediansOf<T>(runs: T[]): T {
  const [first] = runs;
  if (typeof first === 'number') {
    const sorted = (runs as number[]).slice().sort((a, b) => a - b);
    return sorted[Math.floor((sorted.length - 1) / 2)] as T;
  }
  if (!first || typeof first !== 'object' || Array.isArray(first)) return first;
  return Object.fromEntries(Object.keys(first).map((key) => [key, mediansOf(runs.map((run) => (run as Record<string, unknown>)[key]))])) as T;
}
