import { randomUUID } from 'node:crypto';
import { eventOf, ReactionWorld } from '@test/reaction-world';
import { acceptedTask, debited, generationHandlers } from '@test/generation-reactions';
import { generationMigrations } from '../../migrations';

describe('generation: UserDataKey → the user’s key kept, or forgotten', () => {
  const world = new ReactionWorld('generation', generationMigrations);
  const { handlers, asked } = generationHandlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const dataKey = (keyId: string, wrappedKey: string | null) => eventOf('UserDataKey', { wrappedKey }, { userId: 'ann', taskId: keyId, producer: 'tasks' });
  /** A job with its request, sealed under `keyId`, and its debit: it waits only for its key. */
  async function jobWaitingFor(keyId: string): Promise<string> {
    const request = acceptedTask('ann', `sealed:v1:${keyId}:c2VhbGVk`);
    await world.react(handlers, request);
    await world.react(handlers, debited('ann', request.taskId));
    expect(asked.started).not.toContain(request.taskId);
    return request.taskId;
  }

  it('keeps the wrapped key and starts the jobs that waited for it', async () => {
    const keyId = randomUUID();
    const taskId = await jobWaitingFor(keyId);
    await world.react(handlers, dataKey(keyId, 'wrapped:v1:mk-1:d3JhcHBlZA'));
    expect(await world.db('user_data_keys').where({ key_id: keyId }).first('user_id', 'wrapped')).toEqual({
      user_id: 'ann',
      wrapped: 'wrapped:v1:mk-1:d3JhcHBlZA',
    });
    expect(asked.started).toContain(taskId);
  });

  it('forgets an erased key for good (a copy of the key arriving after its erasure is not kept) and lets its jobs run to fail', async () => {
    const keyId = randomUUID();
    const taskId = await jobWaitingFor(keyId);
    await world.react(handlers, dataKey(keyId, null));
    expect(asked.started).toContain(taskId);
    await world.react(handlers, dataKey(keyId, 'wrapped:v1:mk-1:bGF0ZQ'));
    expect(await world.db('user_data_keys').where({ key_id: keyId }).first()).toBeUndefined();
    expect(await world.db('erased_data_keys').where({ key_id: keyId }).first()).toBeDefined();
  });
});
