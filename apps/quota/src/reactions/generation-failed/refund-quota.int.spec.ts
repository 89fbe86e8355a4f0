import { eventOf, ReactionWorld } from '@test/reaction-world';
import { quotaMigrations } from '../../migrations';
import { QuotaHandlers } from '../../quota.handlers';
import { loadQuotaConfig } from '../../quota.config';

describe('quota: GenerationFailed → refund, once, to the user debited', () => {
  const world = new ReactionWorld('quota', quotaMigrations);
  const handlers = new QuotaHandlers(loadQuotaConfig({ DEFAULT_QUOTA: '2' })).handlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const failed = (taskId: string, userId: string) =>
    eventOf(
      'GenerationFailed',
      { attempts: 3, errorClass: 'RETRIES_EXHAUSTED', errorCode: 'MODEL_UNAVAILABLE', reason: 'the model kept failing' },
      { taskId, userId },
    );

  it('gives the debit back to the user it was taken from, whatever user the failure names, and only once', async () => {
    const accepted = eventOf('TaskAccepted', { idempotencyKey: null, reportType: 'summary', input: '{}' }, { userId: 'ann' });
    await world.react(handlers, accepted);
    const refunds = await world.react(handlers, failed(accepted.taskId, 'mallory'));
    expect(refunds).toEqual([expect.objectContaining({ eventType: 'QuotaRefunded', taskId: accepted.taskId, userId: 'ann', amount: 1, balanceAfter: 2 })]);
    expect(await world.react(handlers, failed(accepted.taskId, 'ann'))).toEqual([]);
    expect(await world.db('quota_accounts').where({ user_id: 'ann' }).first('balance')).toEqual({ balance: 2 });
    expect(await world.db('quota_accounts').where({ user_id: 'mallory' }).first()).toBeUndefined();
  });

  it('refunds nothing for a task never debited', async () => {
    expect(await world.react(handlers, failed('5b0e8d1c-0000-4000-8000-00000000f00d', 'ann'))).toEqual([]);
  });
});
