import { given } from '@app/testing';
import { closedByRefusal } from './record-refusal.rules';

describe('a generation job quota refused', () => {
  given('a job waiting for its go-ahead', () => 'awaiting' as const)
    .when('quota refuses the task', closedByRefusal)
    .then('it is closed as refused, and never runs', (closed) => expect(closed).toBe(true));

  given('a job a cancel closed first', () => 'cancelled' as const)
    .when('quota refuses the task', closedByRefusal)
    .then('it stays cancelled', (closed) => expect(closed).toBe(false));
});
