import { randomBytes } from 'node:crypto';
import { masterKeysOf, PersonalData } from '@app/personal-data';
import { eventOf, ReactionWorld } from '../../../../../test/support/reaction-world';
import { tasksMigrations } from '../../migrations';
import { TasksHandlers } from '../../tasks.handlers';
import { loadTasksConfig } from '../../tasks.config';

const masterKeys = masterKeysOf(JSON.stringify({ current: 'mk-1', keys: { 'mk-1': randomBytes(32).toString('base64') } }));
const handlers = new TasksHandlers(loadTasksConfig({}), new PersonalData(masterKeys)).handlers();
const requested = (userId: string, input = '{"topic":"tides"}', idempotencyKey: string | null = null, taskId?: string) =>
  eventOf('TaskRequested', { idempotencyKey, reportType: 'summary', input }, { userId, taskId, producer: 'external' });

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
