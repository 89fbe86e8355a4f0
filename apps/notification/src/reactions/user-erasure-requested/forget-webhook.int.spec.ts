import { eventOf, ReactionWorld } from '@test/reaction-world';
import { notificationMigrations } from '../../migrations';
import { forgetWebhook } from './forget-webhook.handler';
import { notifyUsers } from '../task-outcome/notify-user.handler';
import { setBased } from '@app/messaging';

describe('notification: UserErasureRequested → the webhook deleted, nothing left untold', () => {
  const world = new ReactionWorld('notification', notificationMigrations);
  const handlers = {
    TaskCompleted: setBased<'TaskCompleted'>((events, context) => notifyUsers(events, context, () => undefined)),
    UserErasureRequested: forgetWebhook,
  };
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  it('deletes the webhook, tells a pending outcome in the inbox instead, and answers UserDataErased', async () => {
    await world.db('webhooks').insert({ user_id: 'ann', url: 'https://receiver.example/hook', secret_sealed: 'not read here' });
    const completed = eventOf('TaskCompleted', { reportRef: '/generations/t/report' }, { userId: 'ann' });
    await world.react(handlers, completed);
    const erasure = eventOf('UserErasureRequested', { requestedBy: 'admin' }, { userId: 'ann' });
    expect(await world.react(handlers, erasure)).toEqual([
      expect.objectContaining({ eventType: 'NotificationSent', taskId: completed.taskId, outcome: 'TaskCompleted', channel: 'inbox' }),
      expect.objectContaining({ eventType: 'UserDataErased', service: 'notification', erased: 1, causationId: erasure.eventId }),
    ]);
    expect(await world.db('webhooks').where({ user_id: 'ann' }).first()).toBeUndefined();
    expect(await world.db('notifications').where({ task_id: completed.taskId }).first('status', 'message')).toEqual({
      status: 'failed',
      message: 'Your report is ready: /generations/t/report',
    });
  });
});
