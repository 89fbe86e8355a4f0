import { randomUUID } from 'node:crypto';
import { eventOf, ReactionWorld } from '@test/reaction-world';
import { acceptedTask, generationHandlers } from '@test/generation-reactions';
import { generationMigrations } from '../../migrations';

describe('generation: UserErasureRequested → keys, inputs and reports gone', () => {
  const world = new ReactionWorld('generation', generationMigrations);
  const { handlers, asked } = generationHandlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  it('forgets the user’s key, erases their jobs’ inputs, removes their files after the commit and answers UserDataErased', async () => {
    const keyId = randomUUID();
    await world.react(handlers, eventOf('UserDataKey', { wrappedKey: 'wrapped:v1:mk-1:d3JhcHBlZA' }, { userId: 'ann', taskId: keyId, producer: 'tasks' }));
    const [first, second] = [acceptedTask('ann', `sealed:v1:${keyId}:b25l`), acceptedTask('ann', `sealed:v1:${keyId}:dHdv`)];
    const other = acceptedTask('bob');
    await world.react(handlers, first, second, other);
    const erasure = eventOf('UserErasureRequested', { requestedBy: 'admin' }, { userId: 'ann', producer: 'tasks' });
    expect(await world.react(handlers, erasure)).toEqual([
      expect.objectContaining({ eventType: 'UserDataErased', service: 'generation', erased: 3, userId: 'ann', causationId: erasure.eventId }),
    ]);
    expect(await world.db('generation_jobs').where({ user_id: 'ann' }).pluck('input')).toEqual(['[erased]', '[erased]']);
    expect(await world.db('generation_jobs').where({ user_id: 'bob' }).pluck('input')).toEqual(['{"topic":"tides"}']);
    expect(await world.db('user_data_keys').where({ user_id: 'ann' }).first()).toBeUndefined();
    expect(asked.filesRemoved.map((taskIds) => [...taskIds].sort())).toEqual([[first.taskId, second.taskId].sort()]);
  });
});
