import { eventOf, ReactionWorld } from '@test/reaction-world';
import { requested, tasksHandlers } from '@test/tasks-reactions';
import { tasksMigrations } from '../../migrations';

const handlers = tasksHandlers();

describe('tasks: the other events of a task → its timeline, its state, its one outcome', () => {
  const world = new ReactionWorld('tasks', tasksMigrations);
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  it('moves the task through its events and publishes TaskCompleted once, however often the success arrives', async () => {
    const request = requested('external:ann');
    await world.react(handlers, request);
    const origin = { taskId: request.taskId, userId: 'external:ann' };
    expect(await world.react(handlers, eventOf('QuotaDebited', { amount: 1, balanceAfter: 9 }, { ...origin, producer: 'quota' }))).toEqual([]);
    await world.react(handlers, eventOf('GenerationStarted', { attempt: 1 }, { ...origin, producer: 'generation' }));
    expect(await world.db('tasks').where({ task_id: request.taskId }).first('state')).toEqual({ state: 'RUNNING' });
    const succeeded = eventOf(
      'GenerationSucceeded',
      { attempt: 1, reportRef: `/generations/${request.taskId}/report`, reportBytes: 1024 },
      { ...origin, producer: 'generation' },
    );
    expect(await world.react(handlers, succeeded)).toEqual([
      expect.objectContaining({ eventType: 'TaskCompleted', reportRef: `/generations/${request.taskId}/report` }),
    ]);
    const again = eventOf('GenerationSucceeded', { attempt: 1, reportRef: '/elsewhere', reportBytes: 1024 }, { ...origin, producer: 'generation' });
    expect(await world.react(handlers, again)).toEqual([]);
    expect(await world.db('tasks').where({ task_id: request.taskId }).first('state')).toEqual({ state: 'SUCCESS' });
    const timeline = await world.db('task_timeline').where({ task_id: request.taskId }).orderBy('id').pluck('event_type');
    expect(timeline).toEqual(
      expect.arrayContaining(['TaskRequested', 'TaskAccepted', 'QuotaDebited', 'GenerationStarted', 'GenerationSucceeded', 'TaskCompleted']),
    );
  });
});
