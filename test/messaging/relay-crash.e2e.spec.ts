import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex } from '@app/database';
import { outbox } from '@app/messaging';
import { localKafkaEnv } from '@app/kafka';
import { RunningService, startService, stopService, waitForHealth } from '../../tools/run/service-process';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { relayLockHolder } from '../support/relay-lock';
import { TopicReader } from '../support/topic-reader';
import { freePort } from '../support/unique';
import { waitFor } from '../support/wait-for';

/** The relay runs inside a real service process (quota), which the tests kill with SIGKILL. */
describe('the outbox relay when its process dies', () => {
  let world: MessagingWorld;
  let reader: TopicReader;
  const running: RunningService[] = [];
  const topic = () => world.codec.topicFor('TaskRequested');

  const startQuota = async () => {
    // As admin: these tests put TaskRequested rows in quota's outbox, which quota's own principal may not write.
    const service = startService('quota', await freePort(), { ...world.env.serviceEnv('quota'), ...localKafkaEnv('admin'), OUTBOX_POLL_INTERVAL: '100ms' });
    running.push(service);
    await waitForHealth(service);
    return service;
  };
  const kill = (service: RunningService) => stopService(service, 'SIGKILL');
  // undefined, not null, while unmarked: waitFor takes null for an answer
  const publishedAt = async (eventId: string) => (await world.db('outbox').where({ event_id: eventId }).first())?.published_at ?? undefined;
  const copiesOf = (eventId: string) => reader.events().filter((e) => e.eventId === eventId).length;
  const lockHolder = () => relayLockHolder(world.db);

  beforeEach(async () => {
    world = await new MessagingWorld().setup();
    reader = await new TopicReader(world.kafka, world.codec).start([topic()]);
    world.onTeardown(() => reader.stop());
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => kill(s)));
    await world.teardown();
  });

  it('publishes, exactly once, an event committed while the relay was dead, after it restarts', async () => {
    // Given the relay's process killed
    await kill(await startQuota());

    // When an event is committed with its business row
    const event = taskRequested();
    await world.db.transaction(async (trx) => {
      await trx('effects').insert({ event_id: event.eventId, note: 'business row' });
      await outbox.add(trx, event);
    });
    // Then nothing is published while the relay is dead
    expect(await world.messageCount(topic())).toBe(0);

    // When the process is started again
    await startQuota();

    // Then the event is published and marked; once marked it cannot be sent again, and the topic holds it once
    await waitFor(() => publishedAt(event.eventId), { what: 'the row to be marked published' });
    await waitFor(async () => (await world.messageCount(topic())) === 1, { what: 'one message on the topic' });
    await waitFor(() => copiesOf(event.eventId) === 1, { what: 'the event read back' });
  });

  it("publishes again after dying between Kafka's acknowledgement and the mark, and the consumer applies it once", async () => {
    // Given an event committed while no relay runs
    const event = taskRequested();
    await world.db.transaction((trx) => outbox.add(trx, event));
    // And its row locked, so that the relay's mark will wait after Kafka acknowledged the send
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = world.db.transaction(async (trx: Knex.Transaction) => {
      await trx('outbox').where({ event_id: event.eventId }).forUpdate();
      locked();
      await held;
    });
    await lockTaken;

    // When the relay publishes it, its mark (made by its next read) waits on the row, and the relay
    // is killed, its session with it (a statement the server already has would still run: the mark
    // must not have reached it)
    const first = await startQuota();
    await waitFor(() => copiesOf(event.eventId) === 1, { what: 'the first publication' });
    const markingSession = await waitFor(
      async () => {
        const { rows } = await world.db.raw<{ rows: Array<{ pid: number }> }>(
          "select pid from pg_stat_activity where datname = current_database() and query like '%update outbox set published_at%' and state = 'active' and pid <> pg_backend_pid()",
        );
        return rows[0]?.pid;
      },
      { what: "the relay's mark waiting on the row" },
    );
    await kill(first);
    await world.db.raw('select pg_terminate_backend(?)', [markingSession]);
    release();
    await holder;

    // Then the row is still unpublished
    expect(await publishedAt(event.eventId)).toBeUndefined();

    // When the relay runs again
    await startQuota();

    // Then the event is on the topic twice, and marked
    await waitFor(() => publishedAt(event.eventId), { what: 'the mark after the restart' });
    await waitFor(async () => (await world.messageCount(topic())) === 2, { what: 'two copies on the topic' });
    // And a consumer applies it once, skipping the duplicate
    const consumer = await world.consumer(
      { TaskRequested: async (e, { trx }) => void (await trx('effects').insert({ event_id: e.eventId, note: 'effect' })) },
      { name: 'after-crash' },
    );
    await waitFor(() => consumer.stats.processed + consumer.stats.duplicates === 2, { what: 'both copies consumed' });
    expect(consumer.stats).toMatchObject({ processed: 1, duplicates: 1 });
    expect(await world.db('effects').where({ event_id: event.eventId, note: 'effect' })).toHaveLength(1);
  });

  it('keeps publishing in per-key order with two instances when each in turn is killed', async () => {
    // Given two instances of the service on one database
    let a = await startQuota();
    const b = await startQuota();
    const secondWriter = createKnex(world.databaseUrl);
    world.onTeardown(() => secondWriter.destroy());
    const keys: string[] = Array.from({ length: 10 }, () => randomUUID());

    // When two writers write 500 events over 10 keys while first one instance, then the other, is killed
    const write = async (db: Knex, writerKeys: string[], from: number, to: number) => {
      for (let seq = from; seq < to; seq++) for (const key of writerKeys) await db.transaction((trx) => outbox.add(trx, taskRequested(key, String(seq))));
    };
    const writeRound = (from: number, to: number) => Promise.all([write(world.db, keys.slice(0, 5), from, to), write(secondWriter, keys.slice(5), from, to)]);
    await writeRound(0, 20);
    await kill(a);
    await writeRound(20, 35);
    a = await startQuota();
    await kill(b);
    await writeRound(35, 50);

    // Then all 500 arrive, each key's events first seen in the order they were written
    const arrived = await waitFor(
      () => {
        const ours = reader.events().filter((e) => keys.includes(e.taskId));
        return new Set(ours.map((e) => e.eventId)).size === 500 && ours;
      },
      { what: '500 events', timeoutMs: 90_000 },
    );
    for (const key of keys) {
      const sequence = arrived.filter((e) => e.taskId === key).map((e) => Number(JSON.parse((e as { input: string }).input).note));
      expect(sequence.filter((seq, i) => sequence.indexOf(seq) === i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    }
    expect(a.child.exitCode).toBeNull();
  });

  it('hands the lock over when the instance holding it hangs instead of dying, and the hung one gives way when it wakes', async () => {
    // Given two instances, the first holding the relay's lock
    const a = await startQuota();
    await waitFor(() => lockHolder(), { what: 'the first instance to take the lock' });
    const held = await lockHolder();
    const b = await startQuota();

    // When the first hangs (SIGSTOP: its sessions stay open, it answers nothing) and an event is committed
    a.child.kill('SIGSTOP');
    try {
      const event = taskRequested();
      await world.db.transaction((trx) => outbox.add(trx, event));

      // Then the server ends the hung instance's idle session, the second takes the lock and publishes the event
      await waitFor(() => publishedAt(event.eventId), { what: 'the event published by the second instance', timeoutMs: 60_000 });
      expect(await lockHolder()).not.toBe(held);
      await waitFor(() => copiesOf(event.eventId) === 1, { what: 'the event on its topic' });
    } finally {
      a.child.kill('SIGCONT');
    }

    // And once awake, the first goes on running without taking the lock back, and the second keeps publishing
    const later = taskRequested();
    await world.db.transaction((trx) => outbox.add(trx, later));
    await waitFor(() => publishedAt(later.eventId), { what: 'a later event published' });
    expect(copiesOf(later.eventId)).toBeLessThanOrEqual(1);
    expect(a.child.exitCode).toBeNull();
    expect(b.child.exitCode).toBeNull();
  });
});
