import { outbox } from '@app/messaging';
import { OutboxRelay } from '@app/messaging/testing';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { relayLockHolder } from '../support/relay-lock';
import { TopicReader } from '../support/topic-reader';
import { waitFor } from '../support/wait-for';

/** The relay reads and marks in a session of its own that holds its lock: what happens when the server ends that session. */
describe("the relay's own session", () => {
  const world = new MessagingWorld();
  let reader: TopicReader;
  let relay: OutboxRelay;

  beforeAll(async () => {
    await world.setup();
    reader = await new TopicReader(world.kafka, world.codec).start([world.codec.topicFor('TaskRequested')]);
    world.onTeardown(() => reader.stop());
    relay = await world.relay();
  });
  afterAll(() => world.teardown());

  const lockHolder = () => relayLockHolder(world.db);
  // undefined, not null, while unmarked: waitFor takes null for an answer
  const published = async (eventId: string) => (await world.db('outbox').where({ event_id: eventId }).first())?.published_at ?? undefined;

  it('goes on publishing on a new session, holding the lock again, after the server ended the one it had', async () => {
    // Given the relay publishing, its session holding the lock
    const before = taskRequested();
    await world.db.transaction((trx) => outbox.add(trx, before));
    await waitFor(() => published(before.eventId), { what: 'the first event marked' });
    const first = await waitFor(() => lockHolder(), { what: 'the relay to hold its lock' });

    // When the server ends that session (as a failover or an operator would)
    const failedBefore = relay.stats.failedRounds;
    await world.db.raw('select pg_terminate_backend(?)', [first]);
    await waitFor(async () => (await lockHolder()) === undefined, { what: 'the lock to go with the session' });

    // And an event is committed afterwards
    const after = taskRequested();
    await world.db.transaction((trx) => outbox.add(trx, after));

    // Then the relay's round on the dead session fails, it opens another, takes the lock again, and publishes the event once
    await waitFor(() => published(after.eventId), { what: 'the later event marked' });
    expect(relay.stats.failedRounds).toBeGreaterThan(failedBefore);
    const second = await lockHolder();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    await waitFor(() => reader.events().some((e) => e.eventId === after.eventId), { what: 'the later event on its topic' });
    expect(reader.events().filter((e) => e.eventId === after.eventId)).toHaveLength(1);
  });
});
