import { newEvent } from '@app/events';
import { given } from '@app/testing';
import { decideNotification } from './notification.rules';

const origin = { taskId: '6f1c1d2e-0000-4000-8000-000000000001', userId: 'ann', correlationId: 'c', causationId: 'x' };
const completed = () => newEvent('TaskCompleted', { reportRef: '/generations/t/report' }, origin, 'tasks');
const failed = (errorCode: string, compensated: boolean, reason: string) => newEvent('TaskFailed', { reason, errorCode, compensated }, origin, 'tasks');

describe('how a user is told of an outcome', () => {
  given('a completed task', completed)
    .when('its user has a webhook', (event) => decideNotification(event, true))
    .then('it goes to the webhook, pointing at the report', (decision) =>
      expect(decision).toEqual({ channel: 'webhook', message: 'Your report is ready: /generations/t/report' }),
    );

  given('a completed task', completed)
    .when('its user has no webhook', (event) => decideNotification(event, false))
    .then('it waits in their inbox', (decision) => expect(decision.channel).toBe('inbox'));

  given('a failed task whose debit was refunded', () => failed('MODEL_REJECTED', true, 'the model refused the request (400)'))
    .when('it is told', (event) => decideNotification(event, false))
    .then('the message gives the reason and says the quota came back', (decision) =>
      expect(decision.message).toBe('Your report could not be produced: the model refused the request (400). The quota it used has been refunded.'),
    );

  given('a task that failed before any debit', () => failed('TIMED_OUT', false, 'the task took longer than 120 s'))
    .when('it is told', (event) => decideNotification(event, false))
    .then('the message promises no refund', (decision) => expect(decision.message).not.toContain('refunded'));

  given('a task its user cancelled', () => failed('CANCELLED', true, 'cancelled by ann'))
    .when('it is told', (event) => decideNotification(event, true))
    .then('the message says who cancelled and that nothing is charged', (decision) =>
      expect(decision).toEqual({ channel: 'webhook', message: 'Your report was cancelled by ann. You are not charged for it.' }),
    );
});
