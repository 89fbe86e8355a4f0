import type { HandlerContext } from '@app/messaging';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { waitFor } from '../support/wait-for';

/** Offsets are committed off the hot path: on an interval, never after each batch; all of them at a stop. */
describe('a consumer committing its offsets', () => {
  const world = new MessagingWorld();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  it('sends about one OffsetCommit a second however many batches it handles, and commits everything handled when it stops', async () => {
    // Given a consumer, and events arriving one at a time, each its own batch
    let handled = 0;
    const runner = await world.consumer(
      { TaskRequested: async (_event: unknown, { trx }: HandlerContext) => void (await trx.raw('select 1'), handled++) },
      { name: 'offset-commits' },
    );
    await waitFor(() => runner.status === 'joined', { what: 'the consumer to join' });
    const commitsBefore = runner.offsetCommitRequests;
    const started = Date.now();
    const events = Array.from({ length: 40 }, (_, i) => taskRequested(undefined, `one at a time ${i}`));
    for (const event of events) await world.publish([event]);
    await waitFor(() => handled >= events.length, { what: 'the 40 events handled' });
    const seconds = (Date.now() - started) / 1000;

    // Then far fewer commits were sent than batches handled (kafkajs with autoCommit sent one after each)
    const commits = runner.offsetCommitRequests - commitsBefore;
    expect(commits).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    expect(commits).toBeLessThan(events.length / 2);

    // And when it stops, every handled event's offset is committed: a restart reads nothing again
    await runner.stop();
    const admin = world.kafka.admin();
    await admin.connect();
    try {
      const [committed] = await admin.fetchOffsets({ groupId: runner.groupId, topics: [world.codec.topicFor('TaskRequested')] });
      const total = committed.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
      expect(total).toBe(await world.messageCount(world.codec.topicFor('TaskRequested')));
    } finally {
      await admin.disconnect();
    }
  });
});
