import { given } from '@app/testing';
import { untouchedTask } from '../../ledger/quota.rules';
import { onGenerationSucceeded } from './settle.rules';

describe('settling a successful generation', () => {
  given('a task debited from ann', () => ({ ...untouchedTask, debit: { userId: 'ann', amount: 1 } }))
    .when('its generation succeeds', (task) => onGenerationSucceeded(task))
    .then('the debit is settled for good', (decision) => expect(decision).toEqual({ kind: 'settle', userId: 'ann' }));

  given('a task never debited', () => untouchedTask)
    .when('a success arrives', (task) => onGenerationSucceeded(task))
    .then('nothing changes', (decision) => expect(decision.kind).toBe('nothing'));

  given('a task already settled', () => ({ ...untouchedTask, debit: { userId: 'ann', amount: 1 }, settled: true }))
    .when('a second success arrives', (task) => onGenerationSucceeded(task))
    .then('nothing changes', (decision) => expect(decision.kind).toBe('nothing'));
});
