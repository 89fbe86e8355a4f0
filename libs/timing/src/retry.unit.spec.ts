import { retry } from './retry';

/** Work that fails `failures` times (with the errors given, in turn), then answers its attempt number. */
function flaky(...errors: Error[]) {
  const calls: number[] = [];
  const work = async (attempt: number) => {
    calls.push(attempt);
    const error = errors[attempt - 1];
    if (error) throw error;
    return attempt;
  };
  return { work, calls };
}

describe('retry', () => {
  it('tries again after a failure, waiting as the policy says, until the work succeeds', async () => {
    const { work, calls } = flaky(new Error('one'), new Error('two'));
    const retried: Array<[string, number, number]> = [];
    const answer = await retry(work, { attempts: 5, delayMs: (a) => a * 5, onRetry: (e, a, d) => retried.push([(e as Error).message, a, d]) });
    expect(answer).toBe(3);
    expect(calls).toEqual([1, 2, 3]);
    expect(retried).toEqual([
      ['one', 1, 5],
      ['two', 2, 10],
    ]);
  });

  it('throws the last failure once the attempts are spent', async () => {
    const { work, calls } = flaky(new Error('a'), new Error('b'), new Error('c'));
    await expect(retry(work, { attempts: 2 })).rejects.toThrow('b');
    expect(calls).toEqual([1, 2]);
  });

  it('throws at once a failure the policy does not call retryable', async () => {
    const { work, calls } = flaky(new TypeError('permanent'));
    await expect(retry(work, { attempts: 9, retryable: (e) => !(e instanceof TypeError) })).rejects.toThrow('permanent');
    expect(calls).toEqual([1]);
  });
});
