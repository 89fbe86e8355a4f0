import { setBased } from '@app/messaging';
import { eventOf, ReactionWorld } from '@test/reaction-world';
import { notificationMigrations } from '../../migrations';
import { notifyUsers } from './notify-user.handler';

describe('notification: TaskCompleted / TaskFailed → one notification per outcome', () => {
  const world = new ReactionWorld('notification', notificationMigrations);
  let wakes = 0;
  const handlers = {
    TaskCompleted: setBased<'TaskCompleted'>((events, context) => notifyUsers(events, context, () => wakes++)),
    TaskFailed: setBased<'TaskFailed'>((events, context) => notifyUsers(events, context, () => wakes++)),
  };
  beforeAll(async () => {
    await world.setup();
    await world.db('webhooks').insert({ user_id: 'hooked', url: 'https://receiver.example/hook', secret_sealed: 'not read here' });
  });
  afterAll(() => world.teardown());

  it('leaves a webhook user’s outcome pending for the delivery worker, woken after the commit, and publishes nothing yet', async () => {
    const completed = eventOf('TaskCompleted', { reportRef: '/generations/t/report' }, { userId: 'hooked' });
    expect(await world.react(handlers, completed)).toEqual([]);
    expect(wakes).toBe(1);
    expect(await world.db('notifications').where({ task_id: completed.taskId }).first('channel', 'status', 'message')).toEqual({
      channel: 'webhook',
      status: 'pending',
      message: 'Your report is ready: /generations/t/report',
    });
  });

  it('delivers to the inbox of a user with no webhook at once, with its NotificationSent, and notifies an outcome once', async () => {
    const failed = eventOf(
      'TaskFailed',
      { reason: 'the model refused the request (400)', errorCode: 'MODEL_REJECTED', compensated: true },
      { userId: 'plain' },
    );
    expect(await world.react(handlers, failed)).toEqual([
      expect.objectContaining({ eventType: 'NotificationSent', outcome: 'TaskFailed', channel: 'inbox', taskId: failed.taskId, producer: 'notification' }),
    ]);
    const again = { ...eventOf('TaskFailed', { reason: 'again', errorCode: 'MODEL_REJECTED', compensated: true }, { userId: 'plain', taskId: failed.taskId }) };
    expect(await world.react(handlers, again)).toEqual([]);
    expect(await world.db('notifications').where({ task_id: failed.taskId }).pluck('status')).toEqual(['delivered']);
  });
});
