import { randomUUID } from 'node:crypto';
import { createKnex } from '@app/database';
import { PlatformError } from '@app/failures';
import { outbox } from '@app/messaging';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { header, TopicReader } from '../support/topic-reader';
import { waitFor } from '../support/wait-for';

describe('the outbox and its relay', () => {
  const world = new MessagingWorld();
  let reader: TopicReader;

  beforeAll(async () => {
    await world.setup();
    reader = await new TopicReader(world.kafka, world.codec).start([world.codec.topicFor('TaskRequested')]);
    world.onTeardown(() => reader.stop());
    await world.relay();
  });
  afterAll(() => world.teardown());

  it('publishes an event whose transaction commits, once, keyed by taskId with its id, type and trace in headers', async () => {
    // Given a business change and its event committed together
    const event = taskRequested();
    await world.db.transaction(async (trx) => {
      await trx('effects').insert({ event_id: event.eventId, note: 'business row' });
      await outbox.add(trx, event);
    });

    // Then the event reaches its topic, decoded equal to what was written
    const [message] = await waitFor(
      () => {
        const found = reader.messages.filter((m) => m.event?.eventId === event.eventId);
        return found.length > 0 && found;
      },
      { what: 'the committed event on its topic' },
    );
    expect(message.event).toEqual(event);
    expect(message.key).toBe(event.taskId);
    expect(header(message, 'eventId')).toBe(event.eventId);
    expect(header(message, 'eventType')).toBe('TaskRequested');
    expect(header(message, 'traceparent')).toMatch(new RegExp(`^00-${event.correlationId.replace(/-/g, '')}-[0-9a-f]{16}-01$`));
    // And its row is marked published
    await waitFor(async () => (await world.db('outbox').where({ event_id: event.eventId }).first())?.published_at ?? undefined, { what: 'published_at' });
  });

  it('keeps, for each row it marks, the partition and offset where Kafka acknowledged it', async () => {
    // Given events of several tasks committed in one transaction (one request, several partitions)
    const events = Array.from({ length: 12 }, () => taskRequested());
    await world.db.transaction(async (trx) => {
      for (const event of events) await outbox.add(trx, event);
    });

    // When they are published and marked
    const ids = events.map((e) => e.eventId);
    const rows = await waitFor(
      async () => {
        const marked = await world.db('outbox').whereIn('event_id', ids).whereNotNull('published_at');
        return marked.length === events.length && marked;
      },
      { what: 'every row marked' },
    );

    // Then each row's place is where its event sits on the topic
    const placeOnTopic = new Map(reader.messages.filter((m) => m.event).map((m) => [m.event!.eventId, `${m.partition}:${m.offset}`]));
    expect(new Set(rows.map((r) => r.kafka_partition)).size).toBeGreaterThan(1);
    for (const row of rows) expect(`${row.kafka_partition}:${row.kafka_offset}`).toBe(placeOnTopic.get(row.event_id));
  });

  it('never publishes an event whose transaction rolls back', async () => {
    // Given an event added in a transaction that then fails
    const rolledBack = taskRequested();
    await expect(
      world.db.transaction(async (trx) => {
        await outbox.add(trx, rolledBack);
        throw new Error('business rule failed after the event was added');
      }),
    ).rejects.toThrow('business rule failed');

    // When a later event is committed and published
    const later = taskRequested();
    await world.db.transaction((trx) => outbox.add(trx, later));
    await waitFor(() => reader.events().some((e) => e.eventId === later.eventId), { what: 'the later event' });

    // Then the rolled-back one is neither on the topic nor in the outbox
    expect(reader.events().some((e) => e.eventId === rolledBack.eventId)).toBe(false);
    expect(await world.db('outbox').where({ event_id: rolledBack.eventId })).toHaveLength(0);
  });

  it('refuses, when it is added, an event its schema does not match, naming the field, and writes nothing', async () => {
    // Given an event with a wrong field type and one with an unknown field
    const wrongType = { ...taskRequested(), reportType: 42 } as never;
    const extraField = { ...taskRequested(), colour: 'blue' } as never;

    // Then each is refused with a precise message
    await expect(world.db.transaction((trx) => outbox.add(trx, wrongType))).rejects.toThrow(PlatformError);
    await expect(world.db.transaction((trx) => outbox.add(trx, wrongType))).rejects.toThrow(
      'TaskRequested does not match its schema: reportType: 42 is not a valid string',
    );
    await expect(world.db.transaction((trx) => outbox.add(trx, extraField))).rejects.toThrow('TaskRequested has fields its schema lacks: colour');
    await expect(world.db.transaction((trx) => outbox.add(trx, { ...taskRequested(), eventType: 'TaskExploded' } as never))).rejects.toThrow(
      'unknown eventType "TaskExploded"',
    );
    const anonymous = { ...taskRequested(), producer: '' };
    await expect(world.db.transaction((trx) => outbox.add(trx, anonymous))).rejects.toThrow('names no producer');
    // And nothing was written
    const ids = [wrongType, extraField, anonymous].map((e: { eventId: string }) => e.eventId);
    expect(await world.db('outbox').whereIn('event_id', ids)).toHaveLength(0);
  });

  it('keeps every key in outbox order when two writers and two relays work on the same outbox', async () => {
    // Given a second relay on its own connection pool, as a second instance of the service would run
    const secondPool = createKnex(world.databaseUrl);
    world.onTeardown(() => secondPool.destroy());
    await world.relay({ batchSize: 7 }, secondPool);
    const keys: string[] = Array.from({ length: 10 }, () => randomUUID());

    // When two writers each write 250 events over their own 5 keys, concurrently, one event per transaction
    const write = async (pool: typeof secondPool, writerKeys: string[]) => {
      for (let seq = 0; seq < 50; seq++) {
        for (const key of writerKeys) await pool.transaction((trx) => outbox.add(trx, taskRequested(key, String(seq))));
      }
    };
    await Promise.all([write(world.db, keys.slice(0, 5)), write(secondPool, keys.slice(5))]);

    // Then all 500 arrive, and each key's events arrive in the order they were written
    const arrived = await waitFor(
      () => {
        const ours = reader.events().filter((e) => keys.includes(e.taskId));
        return new Set(ours.map((e) => e.eventId)).size === 500 && ours;
      },
      { what: '500 events', timeoutMs: 60_000 },
    );
    for (const key of keys) {
      const sequence = arrived.filter((e) => e.taskId === key).map((e) => Number(JSON.parse((e as { input: string }).input).note));
      const firstSeen = sequence.filter((seq, i) => sequence.indexOf(seq) === i);
      expect(firstSeen).toEqual(Array.from({ length: 50 }, (_, i) => i));
    }
  });

  it('prunes published rows older than the retention; the topic keeps the events', async () => {
    // Given a relay whose retention is a millisecond
    const pruning = createKnex(world.databaseUrl);
    world.onTeardown(() => pruning.destroy());
    const event = taskRequested();
    await world.db.transaction((trx) => outbox.add(trx, event));
    await waitFor(() => reader.events().some((e) => e.eventId === event.eventId), { what: 'the event on its topic' });

    // When that relay runs
    await world.relay({ retentionMs: 1 }, pruning);

    // Then the published rows are gone from the outbox
    await waitFor(async () => (await world.db('outbox').whereNotNull('published_at')).length === 0, { what: 'pruning' });
  });
});
