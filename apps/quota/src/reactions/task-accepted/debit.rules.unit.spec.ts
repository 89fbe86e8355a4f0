import { given } from '@app/testing';
import { untouchedTask } from '../../ledger/quota.rules';
import { onTaskAccepted } from './debit.rules';

describe('debiting an accepted task', () => {
  given('a task quota has not decided on', () => untouchedTask)
    .when('its user has units left', (task) => onTaskAccepted(task, 'ann', 3))
    .then('one unit is debited', (decision) => expect(decision).toEqual({ kind: 'debit', userId: 'ann', amount: 1, balanceAfter: 2 }));

  given('a task quota has not decided on', () => untouchedTask)
    .when('its user has none', (task) => onTaskAccepted(task, 'ann', 0))
    .then('it is refused for insufficient quota', (decision) =>
      expect(decision).toEqual({ kind: 'reject', userId: 'ann', reason: 'INSUFFICIENT_QUOTA', balance: 0 }),
    );

  given('a task already debited', () => ({ ...untouchedTask, debit: { userId: 'ann', amount: 1 } }))
    .when('it is accepted again', (task) => onTaskAccepted(task, 'ann', 3))
    .then('nothing is decided again', (decision) => expect(decision.kind).toBe('nothing'));

  given('a task already refused (it timed out, or was cancelled, first)', () => ({ ...untouchedTask, rejected: true }))
    .when('its request arrives late', (task) => onTaskAccepted(task, 'ann', 3))
    .then('it takes nothing', (decision) => expect(decision.kind).toBe('nothing'));
});
