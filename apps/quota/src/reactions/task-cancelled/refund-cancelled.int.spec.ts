import { eventOf, ReactionWorld } from '@test/reaction-world';
import { quotaMigrations } from '../../migrations';
import { QuotaHandlers } from '../../quota.handlers';
import { loadQuotaConfig } from '../../quota.config';

describe('quota: TaskCancelled → never charged', () => {
  const world = new ReactionWorld('quota', quotaMigrations);
  const handlers = new QuotaHandlers(loadQuotaConfig({ DEFAULT_QUOTA: '2' })).handlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const accepted = (taskId?: string) => eventOf('TaskAccepted', { idempotencyKey: null, reportType: 'summary', input: '{}' }, { userId: 'ann', taskId });
  const cancelled = (taskId: string) => eventOf('TaskCancelled', { cancelledBy: 'ann' }, { userId: 'ann', taskId });

  it('refunds a debited task once, even after its success was settled', async () => {
    const task = accepted();
    await world.react(handlers, task);
    await world.react(handlers, eventOf('GenerationSucceeded', { attempt: 1, reportRef: '/r', reportBytes: 1024 }, { userId: 'ann', taskId: task.taskId }));
    expect(await world.react(handlers, cancelled(task.taskId))).toEqual([
      expect.objectContaining({ eventType: 'QuotaRefunded', userId: 'ann', balanceAfter: 2 }),
    ]);
    expect(await world.react(handlers, cancelled(task.taskId))).toEqual([]);
  });

  it('refuses a task not yet decided (QuotaRejected{CANCELLED}), so that its request takes nothing', async () => {
    const task = accepted();
    expect(await world.react(handlers, cancelled(task.taskId))).toEqual([expect.objectContaining({ eventType: 'QuotaRejected', reason: 'CANCELLED' })]);
    expect(await world.react(handlers, task)).toEqual([]);
    expect(await world.db('quota_accounts').where({ user_id: 'ann' }).first('balance')).toEqual({ balance: 2 });
  });
});
