import { eventOf, ReactionWorld } from '@test/reaction-world';
import { quotaMigrations } from '../../migrations';
import { QuotaHandlers } from '../../quota.handlers';
import { loadQuotaConfig } from '../../quota.config';

describe('quota: GenerationSucceeded → the debit settled', () => {
  const world = new ReactionWorld('quota', quotaMigrations);
  const handlers = new QuotaHandlers(loadQuotaConfig({ DEFAULT_QUOTA: '2' })).handlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  it('settles the debit without publishing, and a failure claimed afterwards refunds nothing', async () => {
    const accepted = eventOf('TaskAccepted', { idempotencyKey: null, reportType: 'summary', input: '{}' }, { userId: 'ann' });
    await world.react(handlers, accepted);
    const origin = { taskId: accepted.taskId, userId: 'ann' };
    expect(await world.react(handlers, eventOf('GenerationSucceeded', { attempt: 1, reportRef: '/generations/x/report', reportBytes: 1024 }, origin))).toEqual(
      [],
    );
    expect(await world.db('quota_ledger').where({ task_id: accepted.taskId }).orderBy('id').pluck('kind')).toEqual(['debit', 'settled']);
    const lateFailure = eventOf('GenerationFailed', { attempts: 1, errorClass: 'PERMANENT', errorCode: 'MODEL_REJECTED', reason: 'forged' }, origin);
    expect(await world.react(handlers, lateFailure)).toEqual([]);
    expect(await world.db('quota_accounts').where({ user_id: 'ann' }).first('balance')).toEqual({ balance: 1 });
  });
});
