import { given } from '@app/testing';
import { closedByCancel, closedByCancelStatuses } from './stop-cancelled.rules';

describe('a generation job its task’s cancel reaches', () => {
  for (const status of ['awaiting', 'scheduled', 'running'] as const) {
    given(`a job ${status}`, () => status)
      .when('the task is cancelled', closedByCancel)
      .then('it is closed (a running call is aborted after the commit)', (closed) => expect(closed).toBe(true));
  }

  given('a job that succeeded', () => 'succeeded' as const)
    .when('the task is cancelled (the cancel won at the tasks service)', closedByCancel)
    .then('it is closed too, and its report removed', (closed) => expect(closed).toBe(true));

  for (const status of ['failed', 'refused', 'cancelled'] as const) {
    given(`a job that is over (${status})`, () => status)
      .when('the task is cancelled', closedByCancel)
      .then('it stays as it is', (closed) => expect(closed).toBe(false));
  }

  it('lists for the statement exactly the statuses the rule closes', () => {
    expect(closedByCancelStatuses).toEqual(['awaiting', 'scheduled', 'running', 'succeeded']);
  });
});
