import { eventOf, ReactionWorld } from '@test/reaction-world';
import { acceptedTask, debited, generationHandlers } from '@test/generation-reactions';
import { generationMigrations } from '../../migrations';

describe('generation: TaskTimedOut → a debited job with no outcome failed', () => {
  const world = new ReactionWorld('generation', generationMigrations);
  const { handlers, asked } = generationHandlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const timedOut = (userId: string, taskId: string) => eventOf('TaskTimedOut', { reason: 'no outcome within 120 s' }, { userId, taskId, producer: 'tasks' });

  it('fails a debited job (GenerationFailed{TIMED_OUT}, so quota refunds) and cleans it up after the commit', async () => {
    const request = acceptedTask('ann');
    await world.react(handlers, request);
    await world.react(handlers, debited('ann', request.taskId));
    const timeout = timedOut('ann', request.taskId);
    expect(await world.react(handlers, timeout)).toEqual([
      expect.objectContaining({
        eventType: 'GenerationFailed',
        errorCode: 'TIMED_OUT',
        errorClass: 'TIMED_OUT',
        taskId: request.taskId,
        causationId: timeout.eventId,
      }),
    ]);
    expect(await world.db('generation_jobs').where({ task_id: request.taskId }).first('status')).toEqual({ status: 'failed' });
    expect(asked.cleanedUp).toEqual([request.taskId]);
  });

  it('leaves a job quota never debited to quota', async () => {
    const request = acceptedTask('bob');
    await world.react(handlers, request);
    expect(await world.react(handlers, timedOut('bob', request.taskId))).toEqual([]);
    expect(await world.db('generation_jobs').where({ task_id: request.taskId }).first('status')).toEqual({ status: 'awaiting' });
  });
});
