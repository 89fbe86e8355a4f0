import { eventOf, ReactionWorld } from '@test/reaction-world';
import { acceptedTask, generationHandlers } from '@test/generation-reactions';
import { generationMigrations } from '../../migrations';

describe('generation: QuotaRejected → the job refused', () => {
  const world = new ReactionWorld('generation', generationMigrations);
  const { handlers, asked } = generationHandlers();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  const refused = (taskId: string) => eventOf('QuotaRejected', { reason: 'INSUFFICIENT_QUOTA', balance: 0 }, { userId: 'ann', taskId, producer: 'quota' });

  it('closes a waiting job, and records a refusal that came before the request, so that the job never runs', async () => {
    const [waiting, early] = [acceptedTask('ann'), acceptedTask('ann')];
    await world.react(handlers, waiting);
    expect(await world.react(handlers, refused(waiting.taskId), refused(early.taskId))).toEqual([]);
    await world.react(handlers, early);
    const statuses = await world.db('generation_jobs').whereIn('task_id', [waiting.taskId, early.taskId]).pluck('status');
    expect(statuses).toEqual(['refused', 'refused']);
    expect(asked.started).toEqual([]);
  });
});
