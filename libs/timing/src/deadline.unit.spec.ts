import { DeadlineExceeded, withDeadline } from './deadline';

describe('withDeadline', () => {
  it('passes on the result of work that finishes in time', async () => {
    await expect(withDeadline(Promise.resolve(42), 1000, 'quick work')).resolves.toBe(42);
  });

  it('passes on the error of work that fails in time', async () => {
    await expect(withDeadline(Promise.reject(new Error('broken')), 1000, 'failing work')).rejects.toThrow('broken');
  });

  it('fails, naming the work, when the work never finishes', async () => {
    const never = new Promise<never>(() => undefined);
    const outcome = withDeadline(never, 20, 'listing topics');
    await expect(outcome).rejects.toBeInstanceOf(DeadlineExceeded);
    await expect(outcome).rejects.toThrow('listing topics did not finish within 20 ms');
  });
});
