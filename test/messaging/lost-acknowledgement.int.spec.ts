import { randomUUID } from 'node:crypto';
import { defaults } from '@app/config';
import { outbox } from '@app/messaging';
import { createKafka } from '@app/kafka';
import { OutboxRelay } from '@app/messaging/testing';
import { LossyKafkaNetwork } from '../support/lossy-kafka-network';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { TopicReader } from '../support/topic-reader';
import { waitFor } from '../support/wait-for';

describe('the relay when the broker appends a batch but its answer is lost', () => {
  const world = new MessagingWorld();
  let reader: TopicReader;
  let network: LossyKafkaNetwork;
  let relay: OutboxRelay;

  beforeAll(async () => {
    await world.setup();
    reader = await new TopicReader(world.kafka, world.codec).start([world.codec.topicFor('TaskRequested')]);
    world.onTeardown(() => reader.stop());
    network = await new LossyKafkaNetwork().start();
    const kafka = createKafka('lossy', [defaults.kafkaBrokers], { socketFactory: network.socketFactory, retry: { retries: 2, initialRetryTime: 100 } });
    relay = await world.relay({}, world.db, kafka);
  });
  afterAll(() => world.teardown());

  it('publishes every row once the network heals, though its producer and the broker disagree on what was written', async () => {
    // Given a key the relay has already published on, so its producer has a sequence on that partition
    const taskId = randomUUID();
    const first = taskRequested(taskId, 'first');
    await world.db.transaction((trx) => outbox.add(trx, first));
    await waitFor(() => reader.events().some((e) => e.eventId === first.eventId), { what: 'the first event' });

    // When the broker appends the next batch but its answer is lost and the broker cannot be reached
    network.loseNextProduceAnswer();
    const appended = [taskRequested(taskId, 'a'), taskRequested(taskId, 'b')];
    await world.db.transaction(async (trx) => {
      for (const event of appended) await outbox.add(trx, event);
    });
    await waitFor(() => reader.events().some((e) => e.eventId === appended[1].eventId), { what: 'the batch appended by the broker' });
    await waitFor(() => relay.stats.failedRounds > 0, { what: 'the relay giving the batch up' });
    // And more rows of the key are written before it heals, so the next batch is not the lost one
    const later = [taskRequested(taskId, 'c'), taskRequested(taskId, 'd'), taskRequested(taskId, 'e')];
    await world.db.transaction(async (trx) => {
      for (const event of later) await outbox.add(trx, event);
    });
    network.heal();

    // Then every row is published and marked, and the key's events arrive in order
    const all = [first, ...appended, ...later];
    await waitFor(
      async () =>
        (
          await world
            .db('outbox')
            .whereIn(
              'event_id',
              all.map((e) => e.eventId),
            )
            .whereNull('published_at')
        ).length === 0,
      {
        what: 'every row marked published',
        timeoutMs: 30_000,
      },
    );
    const notes = reader
      .events()
      .filter((e) => e.taskId === taskId)
      .map((e) => JSON.parse((e as { input: string }).input).note as string);
    expect(notes.filter((n, i) => notes.indexOf(n) === i)).toEqual(['first', 'a', 'b', 'c', 'd', 'e']);
    expect(network.lostAnswers).toBe(1);
  });
});
