import { randomUUID } from 'node:crypto';
import { defaults } from '@app/config';
import { newEvent } from '@app/events';
import { outbox } from '@app/messaging';
import { EventCodec } from '@app/kafka';
import { OutboxRelay } from '@app/messaging/testing';
import { FaultyProxy } from '../support/faulty-proxy';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { TopicReader } from '../support/topic-reader';
import { waitFor } from '../support/wait-for';

describe('the relay when the schema registry fails in the middle of a run', () => {
  const world = new MessagingWorld();
  let proxy: FaultyProxy;
  let reader: TopicReader;

  beforeAll(async () => {
    await world.setup();
    proxy = await new FaultyProxy(defaults.schemaRegistryUrl).start();
    world.onTeardown(() => proxy.stop());
    reader = await new TopicReader(world.kafka, world.codec).start([world.codec.topicFor('TaskRequested')]);
    world.onTeardown(() => reader.stop());
  });
  afterAll(() => world.teardown());

  it('keeps the marks of the batches it sent, and publishes the rest once the registry answers', async () => {
    // Given a relay whose codec knows TaskRequested's schema but not QuotaDebited's, and reaches the registry through a proxy
    const codec = new EventCodec(proxy.url, world.env.topicPrefix, { requestTimeoutMs: 500 });
    await codec.schemaId('TaskRequested');
    const relay = new OutboxRelay(world.db, world.kafka, codec, { batchSize: 2, pollIntervalMs: 200, retentionMs: 3_600_000 });
    world.onTeardown(() => relay.stop());

    // When the registry fails, and a backlog holds a full batch it can encode, then a row it cannot
    proxy.mode = 'fail-503';
    const taskId = randomUUID();
    const sendable = [taskRequested(taskId, 'a'), taskRequested(taskId, 'b')];
    const origin = { taskId, userId: 'user-1', correlationId: randomUUID(), causationId: null };
    const blocked = newEvent('QuotaDebited', { amount: 1, balanceAfter: 9 }, origin, 'quota');
    await world.db.transaction(async (trx) => {
      for (const event of [...sendable, blocked]) await outbox.add(trx, event);
    });
    await relay.start();

    // Then the batch it could encode is published and stays marked while the registry still fails
    await waitFor(() => relay.stats.failedRounds >= 2, { what: 'the relay failing on the row it cannot encode, twice' });
    const marked = await world
      .db('outbox')
      .whereIn(
        'event_id',
        sendable.map((e) => e.eventId),
      )
      .whereNotNull('published_at');
    expect(marked).toHaveLength(2);
    expect(relay.stats.published).toBe(2);
    expect(await world.db('outbox').where({ event_id: blocked.eventId }).whereNull('published_at')).toHaveLength(1);
    await waitFor(() => sendable.every((e) => reader.events().some((r) => r.eventId === e.eventId)), { what: 'the sent batch on its topic' });
    // Sent once: a run that rolled its marks back would send the batch again at every attempt
    expect(reader.events().filter((r) => r.taskId === taskId)).toHaveLength(2);

    // When the registry answers again, the blocked row follows
    proxy.mode = 'pass';
    await waitFor(async () => (await world.db('outbox').where({ event_id: blocked.eventId }).whereNotNull('published_at')).length === 1, {
      what: 'the blocked row published',
    });
    expect(relay.stats.published).toBe(3);
  });
});
