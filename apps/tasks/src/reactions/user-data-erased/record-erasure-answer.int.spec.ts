import { eventOf, ReactionWorld } from '@test/reaction-world';
import { tasksHandlers } from '@test/tasks-reactions';
import { tasksMigrations } from '../../migrations';

const handlers = tasksHandlers();

describe('tasks: UserDataErased → the erasure’s answer kept', () => {
  const world = new ReactionWorld('tasks', tasksMigrations);
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const answer = (erasureId: string, userId: string, service: string) =>
    eventOf('UserDataErased', { service, erased: 2 }, { taskId: erasureId, userId, producer: service });

  it('keeps one answer per service of a known erasure, and ignores an unknown service, another user and an unknown erasure', async () => {
    const erasureId = '0e1d2c3b-0000-4000-8000-0000000000ee';
    await world.db('user_erasures').insert({ erasure_id: erasureId, user_id: 'ann', requested_by: 'admin' });
    await world.react(handlers, answer(erasureId, 'ann', 'quota'));
    await world.react(handlers, answer(erasureId, 'ann', 'quota'));
    await world.react(handlers, answer(erasureId, 'ann', 'mallory'));
    await world.react(handlers, answer(erasureId, 'bob', 'generation'));
    await world.react(handlers, answer('0e1d2c3b-0000-4000-8000-0000000000ff', 'ann', 'notification'));
    expect(await world.db('user_erasure_answers').select('erasure_id', 'service', 'erased')).toEqual([{ erasure_id: erasureId, service: 'quota', erased: 2 }]);
  });
});
