import { conflictWhenBusy } from './busy-rows';
import { ProblemWithHeaders } from './problem-details.filter';

describe('a row busy past the lock timeout', () => {
  it('is answered 409 with Retry-After, saying what was busy', async () => {
    const busy = conflictWhenBusy(
      () => Promise.reject(Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' })),
      'the task is busy',
    );
    await expect(busy).rejects.toBeInstanceOf(ProblemWithHeaders);
    await expect(busy).rejects.toMatchObject({ status: 409, message: 'the task is busy', headers: { 'Retry-After': '1' } });
  });

  it('leaves every other failure, and every answer, as it was', async () => {
    const broken = new Error('connection refused');
    await expect(conflictWhenBusy(() => Promise.reject(broken), 'busy')).rejects.toBe(broken);
    await expect(conflictWhenBusy(() => Promise.reject(Object.assign(new Error('deadlock'), { code: '40P01' })), 'busy')).rejects.not.toBeInstanceOf(
      ProblemWithHeaders,
    );
    await expect(conflictWhenBusy(() => Promise.resolve(7), 'busy')).resolves.toBe(7);
  });
});
