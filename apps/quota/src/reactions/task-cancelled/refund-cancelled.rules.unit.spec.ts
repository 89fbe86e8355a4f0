import { given } from '@app/testing';
import { TaskLedger, untouchedTask } from '../../ledger/quota.rules';
import { onTaskCancelled } from './refund-cancelled.rules';

const balances = (user: string) => ({ ann: 4, bob: 7 })[user] ?? 0;
const debitedBy = (userId: string, more: Partial<TaskLedger> = {}): TaskLedger => ({ ...untouchedTask, debit: { userId, amount: 1 }, ...more });

describe('a task the tasks service cancelled', () => {
  given('a task debited from ann', () => debitedBy('ann'))
    .when('it is cancelled (the event naming bob)', (task) => onTaskCancelled(task, 'bob', balances))
    .then('the debit goes back to ann, once', (decision) => expect(decision).toEqual({ kind: 'refund', userId: 'ann', amount: 1, balanceAfter: 5 }));

  given('a debited task already refunded', () => debitedBy('ann', { refunded: true }))
    .when('it is cancelled', (task) => onTaskCancelled(task, 'ann', balances))
    .then('nothing more goes back', (decision) => expect(decision.kind).toBe('nothing'));

  given('a debited task whose generation quota saw succeed', () => debitedBy('ann', { settled: true }))
    .when('it is cancelled', (task) => onTaskCancelled(task, 'ann', balances))
    .then('it is refunded all the same: the cancel won at the arbiter', (decision) => expect(decision).toMatchObject({ kind: 'refund', userId: 'ann' }));

  given('a task quota has not decided on', () => untouchedTask)
    .when('it is cancelled', (task) => onTaskCancelled(task, 'bob', balances))
    .then('it is refused, so that a late request takes nothing', (decision) =>
      expect(decision).toEqual({ kind: 'reject', userId: 'bob', reason: 'CANCELLED', balance: 7 }),
    );

  given('a task already refused', () => ({ ...untouchedTask, rejected: true }))
    .when('it is cancelled', (task) => onTaskCancelled(task, 'bob', balances))
    .then('nothing more happens', (decision) => expect(decision.kind).toBe('nothing'));
});
