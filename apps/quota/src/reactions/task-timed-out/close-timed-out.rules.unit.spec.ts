import { given } from '@app/testing';
import { untouchedTask } from '../../ledger/quota.rules';
import { onTaskTimedOut } from './close-timed-out.rules';

describe('closing a task that timed out', () => {
  given('a task quota has not decided on', () => untouchedTask)
    .when('it times out', (task) => onTaskTimedOut(task, 'ann', 5))
    .then('it is refused, so that a late request takes nothing', (decision) =>
      expect(decision).toEqual({ kind: 'reject', userId: 'ann', reason: 'TIMED_OUT', balance: 5 }),
    );

  given('a debited task', () => ({ ...untouchedTask, debit: { userId: 'ann', amount: 1 } }))
    .when('it times out', (task) => onTaskTimedOut(task, 'ann', 5))
    .then('quota leaves it to generation to fail (which refunds it)', (decision) => expect(decision.kind).toBe('nothing'));
});
