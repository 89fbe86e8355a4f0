import { eventOf, ReactionWorld } from '@test/reaction-world';
import { quotaMigrations } from '../../migrations';
import { QuotaHandlers } from '../../quota.handlers';
import { loadQuotaConfig } from '../../quota.config';

describe('quota: TaskTimedOut → a task not yet decided refused', () => {
  const world = new ReactionWorld('quota', quotaMigrations);
  const handlers = new QuotaHandlers(loadQuotaConfig({ DEFAULT_QUOTA: '2' })).handlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const accepted = (taskId?: string) => eventOf('TaskAccepted', { idempotencyKey: null, reportType: 'summary', input: '{}' }, { userId: 'ann', taskId });
  const timedOut = (taskId: string) => eventOf('TaskTimedOut', { reason: 'no outcome within 120 s' }, { userId: 'ann', taskId });

  it('refuses a task whose request has not arrived, so that the late request takes nothing', async () => {
    const late = accepted();
    expect(await world.react(handlers, timedOut(late.taskId))).toEqual([
      expect.objectContaining({ eventType: 'QuotaRejected', reason: 'TIMED_OUT', balance: 2 }),
    ]);
    expect(await world.react(handlers, late)).toEqual([]);
    expect(await world.db('quota_accounts').where({ user_id: 'ann' }).first('balance')).toEqual({ balance: 2 });
  });

  it('leaves a debited task to generation, which fails it (and quota then refunds)', async () => {
    const task = accepted();
    await world.react(handlers, task);
    expect(await world.react(handlers, timedOut(task.taskId))).toEqual([]);
  });
});
