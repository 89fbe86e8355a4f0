import { eventOf, ReactionWorld } from '@test/reaction-world';
import { acceptedTask, debited, generationHandlers } from '@test/generation-reactions';
import { generationMigrations } from '../../migrations';

describe('generation: TaskCancelled → the job closed', () => {
  const world = new ReactionWorld('generation', generationMigrations);
  const { handlers, asked } = generationHandlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const cancelled = (userId: string, taskId: string) => eventOf('TaskCancelled', { cancelledBy: userId }, { userId, taskId, producer: 'tasks' });

  it('closes a scheduled job without publishing (quota refunds on the same event) and stops it after the commit', async () => {
    const request = acceptedTask('ann');
    await world.react(handlers, request);
    await world.react(handlers, debited('ann', request.taskId));
    expect(await world.react(handlers, cancelled('ann', request.taskId))).toEqual([]);
    expect(await world.db('generation_jobs').where({ task_id: request.taskId }).first('status')).toEqual({ status: 'cancelled' });
    expect(asked.stopped).toEqual([{ taskId: request.taskId, hadReport: false }]);
  });

  it('leaves a job that failed as it is', async () => {
    const request = acceptedTask('bob');
    await world.react(handlers, request);
    await world.react(handlers, debited('bob', request.taskId));
    await world.react(handlers, eventOf('TaskTimedOut', { reason: 'late' }, { userId: 'bob', taskId: request.taskId, producer: 'tasks' }));
    await world.react(handlers, cancelled('bob', request.taskId));
    expect(await world.db('generation_jobs').where({ task_id: request.taskId }).first('status')).toEqual({ status: 'failed' });
    expect(asked.stopped.map((job) => job.taskId)).not.toContain(request.taskId);
  });
});
