import { consumerLag, consumerStalledSeconds } from '@app/metrics';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { waitFor } from '../support/wait-for';

/** A gauge's value for one partition, as /metrics would show it. */
async function gauge(metric: typeof consumerLag, topic: string, partition: number): Promise<number | undefined> {
  return (await metric.get()).values.find((v) => v.labels.topic === topic && v.labels.partition === String(partition))?.value;
}

describe("a consumer's progress, read from the broker", () => {
  let world: MessagingWorld;
  beforeAll(async () => (world = await new MessagingWorld().setup()));
  afterAll(() => world.teardown());

  it('shows a partition whose handler makes no progress as stalled, with its lag from the broker, and clears once it moves', async () => {
    // Given a consumer whose handler hangs on the first event until it is let go
    let letGo!: () => void;
    const hanging = new Promise<void>((resolve) => (letGo = resolve));
    world.onTeardown(async () => letGo()); // a failed expectation must not leave the consumer's stop waiting on it
    const first = taskRequested();
    const runner = await world.consumer(
      { TaskRequested: async (event) => (event.eventId === first.eventId ? hanging : undefined) },
      { name: 'stalling', progress: { intervalMs: 200, stallAfterMs: 1500 } },
    );
    const topic = world.codec.topicFor('TaskRequested');
    const producer = world.kafka.producer();
    await producer.connect();
    world.onTeardown(() => producer.disconnect());

    // When three events arrive on one partition, the first of which hangs
    const events = [first, taskRequested(), taskRequested()];
    await producer.send({
      topic,
      acks: -1,
      messages: await Promise.all(events.map(async (e) => ({ key: e.taskId, value: await world.codec.encode(e), partition: 1 }))),
    });

    // Then, past the threshold, the partition is reported stalled with the lag the broker gives
    const stalled = await waitFor(() => runner.stalledPartitions().length > 0 && runner.stalledPartitions(), { what: 'the stall to be reported' });
    expect(stalled).toEqual([expect.stringMatching(new RegExp(`^${topic.replace(/\./g, '\\.')}\\[1\\]: 3 behind at offset 0, no progress for \\d+ s$`))]);
    await runner.readProgress();
    expect(await gauge(consumerLag, topic, 1)).toBe(3);
    expect(await gauge(consumerStalledSeconds, topic, 1)).toBeGreaterThanOrEqual(1.5);
    // And the partitions that have nothing to read are not
    expect(await gauge(consumerStalledSeconds, topic, 0)).toBe(0);

    // When the handler is let go
    letGo();

    // Then the partition catches up and is no longer stalled
    await waitFor(
      async () => {
        await runner.readProgress();
        return (await gauge(consumerLag, topic, 1)) === 0 && runner.stalledPartitions().length === 0;
      },
      { what: 'the partition to catch up' },
    );
    expect(await gauge(consumerStalledSeconds, topic, 1)).toBe(0);
    expect(runner.stats.processed).toBe(3);
  });
});
