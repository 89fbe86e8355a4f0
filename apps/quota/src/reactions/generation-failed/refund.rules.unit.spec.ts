import { given } from '@app/testing';
import { TaskLedger, untouchedTask } from '../../ledger/quota.rules';
import { onGenerationFailed } from './refund.rules';

const debitedBy = (userId: string, more: Partial<TaskLedger> = {}): TaskLedger => ({ ...untouchedTask, debit: { userId, amount: 1 }, ...more });

describe('refunding a failed generation', () => {
  given('a task debited from ann, whose balance is now 4', () => debitedBy('ann'))
    .when('its generation fails', (task) => onGenerationFailed(task, 4))
    .then('the debit goes back to ann', (decision) => expect(decision).toEqual({ kind: 'refund', userId: 'ann', amount: 1, balanceAfter: 5 }));

  given('a task never debited', () => untouchedTask)
    .when('a failure arrives', (task) => onGenerationFailed(task, 4))
    .then('nobody is refunded', (decision) => expect(decision).toMatchObject({ kind: 'nothing', because: 'the task was never debited' }));

  given('a task refused by quota', () => ({ ...untouchedTask, rejected: true }))
    .when('a failure arrives', (task) => onGenerationFailed(task, 4))
    .then('nobody is refunded', (decision) => expect(decision.kind).toBe('nothing'));

  given('a debited task already refunded', () => debitedBy('ann', { refunded: true }))
    .when('a second failure arrives', (task) => onGenerationFailed(task, 4))
    .then('it is not refunded again', (decision) => expect(decision.kind).toBe('nothing'));

  given('a debited task whose generation succeeded', () => debitedBy('ann', { settled: true }))
    .when('a failure arrives (forged, or late)', (task) => onGenerationFailed(task, 4))
    .then('it is not refunded', (decision) => expect(decision.kind).toBe('nothing'));
});
