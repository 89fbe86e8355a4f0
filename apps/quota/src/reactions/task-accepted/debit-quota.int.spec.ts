import { eventOf, ReactionWorld } from '@test/reaction-world';
import { quotaMigrations } from '../../migrations';
import { QuotaHandlers } from '../../quota.handlers';
import { loadQuotaConfig } from '../../quota.config';

describe('quota: TaskAccepted → debit, or refuse', () => {
  const world = new ReactionWorld('quota', quotaMigrations);
  const handlers = new QuotaHandlers(loadQuotaConfig({ DEFAULT_QUOTA: '1' })).handlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const accepted = (userId: string, taskId?: string) =>
    eventOf('TaskAccepted', { idempotencyKey: null, reportType: 'summary', input: '{}' }, { userId, taskId });

  it('debits the first of two tasks of a user with one unit and refuses the second, in the batch order, on the ledger', async () => {
    const [first, second] = [accepted('ann'), accepted('ann')];
    const published = await world.react(handlers, first, second);
    expect(published.map((e) => [e.eventType, e.taskId, e.producer])).toEqual([
      ['QuotaDebited', first.taskId, 'quota'],
      ['QuotaRejected', second.taskId, 'quota'],
    ]);
    expect(published[1]).toMatchObject({ reason: 'INSUFFICIENT_QUOTA', balance: 0, causationId: second.eventId });
    const ledger = await world.db('quota_ledger').where({ user_id: 'ann' }).orderBy('id').select('kind', 'amount', 'task_id');
    expect(ledger).toEqual([
      { kind: 'grant', amount: 1, task_id: null },
      { kind: 'debit', amount: 1, task_id: first.taskId },
      { kind: 'rejection', amount: 0, task_id: second.taskId },
    ]);
  });

  it('decides a task once: the same event again is stopped by the inbox, another event for the task by the ledger', async () => {
    const task = accepted('bob');
    expect((await world.react(handlers, task)).map((e) => e.eventType)).toEqual(['QuotaDebited']);
    expect(await world.react(handlers, task)).toEqual([]);
    expect(await world.react(handlers, { ...accepted('bob', task.taskId) })).toEqual([]);
    expect(await world.db('quota_ledger').where({ task_id: task.taskId }).count<Array<{ count: string }>>('* as count')).toEqual([{ count: '1' }]);
  });
});
