import { randomUUID } from 'node:crypto';
import { PlatformError } from '@app/failures';
import { deadLetterHeaders } from '@app/dead-letters';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { header, TopicReader } from '../support/topic-reader';
import { waitFor } from '../support/wait-for';

describe('the inbox consumer runner', () => {
  // A world per test: its own topics and database, so no test sees another's events.
  let world: MessagingWorld;
  let producer: ReturnType<MessagingWorld['kafka']['producer']>;
  const topic = () => world.codec.topicFor('TaskRequested');

  beforeEach(async () => {
    world = await new MessagingWorld().setup();
    producer = world.kafka.producer({ idempotent: true });
    await producer.connect();
    world.onTeardown(() => producer.disconnect());
  });
  afterEach(() => world.teardown());

  const send = async (messages: Array<{ key: string; value: Buffer; partition?: number; headers?: Record<string, string> }>) =>
    producer.send({ topic: topic(), acks: -1, messages });
  const effectsOf = (eventId: string) => world.db('effects').where({ event_id: eventId });

  it('applies an event delivered three times once, and counts two duplicates', async () => {
    // Given a consumer whose handler writes one effect per event
    const runner = await world.consumer(
      { TaskRequested: async (event, { trx }) => void (await trx('effects').insert({ event_id: event.eventId, note: 'dedupe' })) },
      { name: 'dedupe' },
    );
    const event = taskRequested();
    const value = await world.codec.encode(event);

    // When the same event is delivered three times
    await send([1, 2, 3].map(() => ({ key: event.taskId, value })));

    // Then the effect happened once and two duplicates were skipped
    await waitFor(() => runner.stats.processed + runner.stats.duplicates === 3, { what: 'three deliveries' });
    expect(await effectsOf(event.eventId)).toHaveLength(1);
    expect(runner.stats).toMatchObject({ processed: 1, duplicates: 2, deadLettered: 0 });
    expect(await world.db('inbox').where({ consumer: 'dedupe', event_id: event.eventId })).toHaveLength(1);
  });

  it('commits nothing of a handler that throws after writing, and retries the event', async () => {
    // Given a handler that writes a row and then fails on its first attempt
    const event = taskRequested();
    const seenByAttempt: number[] = [];
    const runner = await world.consumer(
      {
        TaskRequested: async (e, { trx }) => {
          if (e.eventId !== event.eventId) return;
          seenByAttempt.push((await trx('effects').where({ event_id: e.eventId })).length);
          await trx('effects').insert({ event_id: e.eventId, note: `attempt ${seenByAttempt.length}` });
          if (seenByAttempt.length === 1) throw new Error('downstream hiccup after writing');
        },
      },
      { name: 'rollback' },
    );

    // When the event is delivered
    await send([{ key: event.taskId, value: await world.codec.encode(event) }]);

    // Then the second attempt saw nothing of the first, and only its own write remains
    await waitFor(() => runner.stats.processed === 1, { what: 'the retried event to be processed' });
    expect(seenByAttempt).toEqual([0, 0]);
    expect((await effectsOf(event.eventId)).map((r) => r.note)).toEqual(['attempt 2']);
    expect(runner.stats.retried).toBe(1);
    expect(await world.db('inbox').where({ consumer: 'rollback', event_id: event.eventId })).toHaveLength(1);
  });

  it('dead-letters garbage, an unknown schema id and an always-failing handler with error headers, then processes the next message on the partition', async () => {
    // Given a handler that always throws for one task, and refuses another permanently
    const poisoned = taskRequested();
    const refused = taskRequested();
    const healthy = taskRequested();
    const runner = await world.consumer(
      {
        TaskRequested: async (e, { trx }) => {
          if (e.eventId === poisoned.eventId) throw new Error('handler bug');
          if (e.eventId === refused.eventId) throw new PlatformError('INVALID_EVENT', 'report type not supported');
          await trx('effects').insert({ event_id: e.eventId, note: 'after the poison' });
        },
      },
      { name: 'poison', maxAttempts: 3 },
    );
    const dlq = await new TopicReader(world.kafka).start([runner.deadLetterTopic]);
    world.onTeardown(() => dlq.stop());
    const garbage = Buffer.from('definitely not avro');
    const unknownSchema = Buffer.from([0, 0x7f, 0xff, 0xff, 0x00, 0x02]);

    // When all of them arrive on one partition, the valid message last
    await send([
      { key: 'k', value: garbage, partition: 0 },
      { key: 'k', value: unknownSchema, partition: 0 },
      { key: poisoned.taskId, value: await world.codec.encode(poisoned), partition: 0, headers: { eventId: poisoned.eventId } },
      { key: refused.taskId, value: await world.codec.encode(refused), partition: 0 },
      { key: healthy.taskId, value: await world.codec.encode(healthy), partition: 0 },
    ]);

    // Then the valid message is processed
    await waitFor(async () => (await effectsOf(healthy.eventId)).length === 1, { what: 'the valid message after the poison' });
    // And four messages are dead letters, bytes intact, each saying why
    await waitFor(() => dlq.messages.length === 4, { what: 'four dead letters' });
    const byCode = Object.fromEntries(dlq.messages.map((m) => [header(m, deadLetterHeaders.errorCode), m]));
    expect(Object.keys(byCode).sort()).toEqual(['DECODE_FAILED', 'HANDLER_FAILED', 'INVALID_EVENT', 'UNKNOWN_SCHEMA']);
    expect(byCode.DECODE_FAILED.value).toEqual(garbage);
    expect(byCode.UNKNOWN_SCHEMA.value).toEqual(unknownSchema);
    expect(header(byCode.HANDLER_FAILED, deadLetterHeaders.attempts)).toBe('3');
    expect(header(byCode.HANDLER_FAILED, deadLetterHeaders.errorMessage)).toBe('handler bug');
    expect(header(byCode.HANDLER_FAILED, 'eventId')).toBe(poisoned.eventId);
    expect(header(byCode.INVALID_EVENT, deadLetterHeaders.attempts)).toBe('1');
    for (const m of dlq.messages) {
      expect(header(m, deadLetterHeaders.topic)).toBe(topic());
      expect(header(m, deadLetterHeaders.partition)).toBe('0');
      expect(header(m, deadLetterHeaders.consumer)).toBe('poison');
      expect(header(m, deadLetterHeaders.offset)).toMatch(/^\d+$/);
      expect(new Date(header(m, deadLetterHeaders.failedAt) ?? '').getTime()).not.toBeNaN();
    }
    expect(runner.stats.deadLettered).toBe(4);
    expect(await effectsOf(poisoned.eventId)).toHaveLength(0);
  });

  it('loses nothing and doubles nothing when a second instance joins the group mid-stream', async () => {
    // Given one instance consuming a stream of 300 events
    const handlers = {
      TaskRequested: async (e: { eventId: string }, { trx }: { trx: typeof world.db }) =>
        void (await trx('effects').insert({ event_id: e.eventId, note: 'rebalance' })),
    };
    const first = await world.consumer(handlers as never, { name: 'rebalance' });
    const events = Array.from({ length: 300 }, () => taskRequested(randomUUID()));
    const encoded = await Promise.all(events.map(async (e) => ({ key: e.taskId, value: await world.codec.encode(e) })));
    await send(encoded.slice(0, 150));
    await waitFor(() => first.stats.processed > 20, { what: 'the first instance to be under way' });

    // When a second instance joins and takes partitions over, and the rest arrives
    const second = await world.consumer(handlers as never, { name: 'rebalance' });
    await waitFor(() => second.assignedPartitions() > 0, { what: 'the second instance to be given partitions' });
    await send(encoded.slice(150));

    // Then every event has exactly one effect
    const ids = events.map((e) => e.eventId);
    await waitFor(
      async () => {
        const { count } = (await world.db('inbox').where({ consumer: 'rebalance' }).whereIn('event_id', ids).count({ count: '*' }))[0];
        return Number(count) === 300;
      },
      { what: 'all 300 events in the inbox', timeoutMs: 90_000 },
    );
    const effects = await world.db('effects').where({ note: 'rebalance' }).whereIn('event_id', ids);
    expect(effects).toHaveLength(300);
    expect(new Set(effects.map((r) => r.event_id)).size).toBe(300);
    expect(first.stats.processed + second.stats.processed).toBe(300);
    expect(second.stats.processed).toBeGreaterThan(0);
  });

  it('on stop, lets the event in flight finish and commits its offset, so the next instance does not see it again', async () => {
    // Given a handler that is slow for one event
    const slow = taskRequested();
    const next = taskRequested(slow.taskId); // same key: same partition, after the slow one
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    const first = await world.consumer(
      {
        TaskRequested: async (e, { trx }) => {
          if (e.eventId === slow.eventId) {
            started();
            await gate;
          }
          await trx('effects').insert({ event_id: e.eventId, note: 'graceful' });
        },
      },
      { name: 'graceful' },
    );
    await send([{ key: slow.taskId, value: await world.codec.encode(slow) }]);
    await handlerStarted;

    // When the instance is stopped while that event is in flight
    const stopped = first.stop();
    release();
    await stopped;

    // Then the event was completed and committed
    expect(first.stats.processed).toBe(1);
    expect(await effectsOf(slow.eventId)).toHaveLength(1);
    // And a new instance of the group starts after it: it processes the next event and never sees the first
    await send([{ key: next.taskId, value: await world.codec.encode(next) }]);
    const second = await world.consumer(
      { TaskRequested: async (e, { trx }) => void (await trx('effects').insert({ event_id: e.eventId, note: 'graceful' })) },
      { name: 'graceful' },
    );
    await waitFor(async () => (await effectsOf(next.eventId)).length === 1, { what: 'the next event' });
    expect(second.stats).toMatchObject({ processed: 1, duplicates: 0 });
  });
});
