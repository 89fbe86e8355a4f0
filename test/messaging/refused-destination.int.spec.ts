import { randomUUID } from 'node:crypto';
import { partnerTopicFor } from '@app/catalogue';
import { defaults } from '@app/config';
import { listParkedRows } from '@app/dead-letters';
import { DomainEvent, newEvent } from '@app/events';
import { createKafka, localKafkaCredentials } from '@app/kafka';
import { outbox } from '@app/messaging';
import { MessagingWorld } from '../support/messaging-world';
import { PartnerClient } from '../support/partner';
import { TopicReader } from '../support/topic-reader';
import { uniqueSuffix } from '../support/unique';
import { waitFor } from '../support/wait-for';

const completed = (taskId: string, userId: string): DomainEvent =>
  newEvent('TaskCompleted', { reportRef: `reports/${taskId}.md` }, { taskId, userId, correlationId: randomUUID(), causationId: null }, 'tasks');

/**
 * The tasks relay, as the tasks principal, when a partner is removed while copies of its users'
 * outcomes wait in the outbox: the broker refuses its topic (TOPIC_AUTHORIZATION_FAILED), and what
 * must not happen is what did — every row behind the copy waiting, round after round.
 */
describe('the relay when a destination refuses its copies', () => {
  const world = new MessagingWorld();
  const name = `gone${uniqueSuffix()}`;
  let partner: PartnerClient;
  let shared: TopicReader;

  beforeAll(async () => {
    await world.setup();
    partner = await PartnerClient.add(name, world.env.topicPrefix);
    shared = await new TopicReader(world.kafka, world.codec).start([world.codec.topicFor('TaskCompleted')]);
    world.onTeardown(() => shared.stop());
  });
  afterAll(async () => {
    await partner.remove().catch(() => undefined);
    await world.teardown();
  });

  it("parks the removed partner's copies alone, publishes every other row meanwhile, and delivers the copies once the partner is back", async () => {
    // Given the partner removed (its credentials and grants withdrawn), and copies of its users' outcomes in the outbox between other users' outcomes
    await partner.remove();
    const copyTopic = partnerTopicFor(name, 'TaskCompleted');
    const theirs = [completed(randomUUID(), `${name}:ann`), completed(randomUUID(), `${name}:bob`)];
    const others = Array.from({ length: 20 }, (_, i) => completed(randomUUID(), `user-${i}`));
    for (const event of [theirs[0], ...others.slice(0, 10), theirs[1], ...others.slice(10)]) {
      await world.db.transaction((trx) => outbox.add(trx, event, undefined, theirs.includes(event) ? [copyTopic] : []));
    }

    // When the relay runs as the tasks service does, with its own principal
    const asTasks = createKafka('tasks-relay', [defaults.kafkaBrokers], { sasl: { mechanism: 'scram-sha-512', ...localKafkaCredentials('tasks')! } });
    const relay = await world.relay({ parkedRetryMs: 300 }, world.db, asTasks);

    // Then every event on its own topic is published, the partner's users' ones too
    const onShared = (e: DomainEvent) => shared.events().some((s) => s.eventId === e.eventId);
    await waitFor(() => [...theirs, ...others].every(onShared), { what: 'every event on the shared topic', timeoutMs: 30_000 });
    // And the two copies are parked for that destination alone, to be tried again by the relay itself
    const parked = await waitFor(
      async () => {
        const rows = await listParkedRows(world.db);
        return rows.length === 2 && rows;
      },
      { what: 'the two copies parked' },
    );
    expect(parked.map((r) => r.eventId).sort()).toEqual(theirs.map((e) => e.eventId).sort());
    expect(parked.every((r) => r.destination === copyTopic && r.retryAt !== null && r.heldBack === 0)).toBe(true);
    expect(parked[0].reason).toMatch(/refused by the broker/);
    expect(relay.stats.failedRounds).toBe(0);

    // When a new outcome of another user is committed while the copies are parked
    const later = completed(randomUUID(), 'user-late');
    await world.db.transaction((trx) => outbox.add(trx, later));
    // Then it is published without waiting for them
    await waitFor(() => onShared(later), { what: 'a later event, past the parked copies' });

    // When the partner is added back (its grants return)
    partner = await PartnerClient.add(name, world.env.topicPrefix);
    const outcomes = await partner.outcomes();
    // Then its parked copies reach its topic, by the relay's own retry
    await waitFor(() => theirs.every((e) => outcomes.events().some((o) => o.eventId === e.eventId)), {
      what: "the partner's copies, delivered once it is back",
      timeoutMs: 60_000,
    });
    await waitFor(async () => (await listParkedRows(world.db)).length === 0, { what: 'no row parked any more' });
  });
});
