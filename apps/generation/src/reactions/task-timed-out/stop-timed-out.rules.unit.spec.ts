import { given } from '@app/testing';
import { fateAtDeadline } from './stop-timed-out.rules';

describe('a generation job at its task’s deadline', () => {
  for (const status of ['awaiting', 'scheduled', 'running'] as const) {
    given(`a debited job ${status}`, () => ({ status, debited: true }))
      .when('the task times out', fateAtDeadline)
      .then('it is failed now, so quota refunds it', (fate) => expect(fate).toBe('fail'));
  }

  given('a job quota has not debited', () => ({ status: 'awaiting' as const, debited: false }))
    .when('the task times out', fateAtDeadline)
    .then('it is left to quota, whose refusal closes it', (fate) => expect(fate).toBe('leave'));

  for (const status of ['succeeded', 'failed', 'refused', 'cancelled'] as const) {
    given(`a job that ended (${status})`, () => ({ status, debited: true }))
      .when('the task times out', fateAtDeadline)
      .then('it stays as it ended', (fate) => expect(fate).toBe('leave'));
  }
});
