import { eventOf, ReactionWorld } from '@test/reaction-world';
import { acceptedTask, debited, generationHandlers } from '@test/generation-reactions';
import { generationMigrations } from '../../migrations';

describe('generation: QuotaDebited → the job’s go-ahead kept', () => {
  const world = new ReactionWorld('generation', generationMigrations);
  const { handlers, asked } = generationHandlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  it('makes due and starts a job whose request is known, once', async () => {
    const request = acceptedTask('ann');
    await world.react(handlers, request);
    const debit = debited('ann', request.taskId);
    await world.react(handlers, debit);
    await world.react(handlers, debit);
    expect(asked.started.filter((taskId) => taskId === request.taskId)).toHaveLength(1);
    expect(await world.db('generation_jobs').where({ task_id: request.taskId }).first('status', 'debit_event_id')).toEqual({
      status: 'scheduled',
      debit_event_id: debit.eventId,
    });
  });

  it('starts nothing for a job a cancel closed before its request and debit came', async () => {
    const request = acceptedTask('bob');
    await world.react(handlers, eventOf('TaskCancelled', { cancelledBy: 'bob' }, { userId: 'bob', taskId: request.taskId, producer: 'tasks' }));
    await world.react(handlers, request);
    await world.react(handlers, debited('bob', request.taskId));
    expect(asked.started).not.toContain(request.taskId);
    expect(await world.db('generation_jobs').where({ task_id: request.taskId }).first('status')).toEqual({ status: 'cancelled' });
  });
});
