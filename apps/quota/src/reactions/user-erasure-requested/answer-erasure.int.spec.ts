import { eventOf, ReactionWorld } from '@test/reaction-world';
import { quotaMigrations } from '../../migrations';
import { QuotaHandlers } from '../../quota.handlers';
import { loadQuotaConfig } from '../../quota.config';

describe('quota: UserErasureRequested → UserDataErased, the ledger kept', () => {
  const world = new ReactionWorld('quota', quotaMigrations);
  const handlers = new QuotaHandlers(loadQuotaConfig({ DEFAULT_QUOTA: '2' })).handlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  it('answers that it erased nothing, and keeps the user’s ledger for accounting', async () => {
    await world.react(handlers, eventOf('TaskAccepted', { idempotencyKey: null, reportType: 'summary', input: '{}' }, { userId: 'ann' }));
    const erasure = eventOf('UserErasureRequested', { requestedBy: 'admin' }, { userId: 'ann' });
    expect(await world.react(handlers, erasure)).toEqual([
      expect.objectContaining({ eventType: 'UserDataErased', service: 'quota', erased: 0, userId: 'ann', causationId: erasure.eventId }),
    ]);
    expect(await world.db('quota_ledger').where({ user_id: 'ann' }).orderBy('id').pluck('kind')).toEqual(['grant', 'debit']);
  });
});
