import { ReactionWorld } from '@test/reaction-world';
import { acceptedTask, debited, generationHandlers } from '@test/generation-reactions';
import { generationMigrations } from '../../migrations';

describe('generation: TaskAccepted → the job’s request kept', () => {
  const world = new ReactionWorld('generation', generationMigrations);
  const { handlers, asked } = generationHandlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  it('keeps a request that has no go-ahead yet waiting, and publishes nothing', async () => {
    const request = acceptedTask('ann');
    expect(await world.react(handlers, request)).toEqual([]);
    expect(await world.db('generation_jobs').where({ task_id: request.taskId }).first('status', 'report_type', 'input')).toEqual({
      status: 'awaiting',
      report_type: 'summary',
      input: '{"topic":"tides"}',
    });
    expect(asked.started).not.toContain(request.taskId);
  });

  it('makes due and starts a job whose debit came first', async () => {
    const request = acceptedTask('ann');
    await world.react(handlers, debited('ann', request.taskId));
    expect(asked.started).not.toContain(request.taskId);
    await world.react(handlers, request);
    expect(asked.started).toContain(request.taskId);
    expect(await world.db('generation_jobs').where({ task_id: request.taskId }).first('status')).toEqual({ status: 'scheduled' });
  });
});
