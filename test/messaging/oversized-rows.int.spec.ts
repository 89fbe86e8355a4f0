import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ConfigResourceTypes } from 'kafkajs';
import { outbox } from '@app/messaging';
import { listParkedRows } from '@app/dead-letters';
import { OutboxRelay } from '@app/messaging/testing';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { TopicReader } from '../support/topic-reader';
import { waitFor } from '../support/wait-for';

/** A TaskRequested whose input is about `bytes` long. */
const large = (bytes: number, taskId: string = randomUUID()) => {
  const event = taskRequested(taskId);
  return { ...event, input: JSON.stringify({ note: 'x'.repeat(bytes) }) };
};

/** The dlq CLI as an operator runs it, on the world's database (it plays quota's). */
async function dlq(world: MessagingWorld, ...args: string[]): Promise<string> {
  const root = path.resolve(__dirname, '..', '..');
  const { stdout } = await promisify(execFile)('npx', ['ts-node', 'tools/dlq/cli.ts', ...args], {
    cwd: root,
    env: { ...process.env, QUOTA_DATABASE_URL: world.databaseUrl, TOPIC_PREFIX: world.env.topicPrefix },
  });
  return stdout;
}

describe('the relay with rows larger than the broker takes', () => {
  const world = new MessagingWorld();
  let reader: TopicReader;
  let relay: OutboxRelay;
  const topic = () => world.codec.topicFor('TaskRequested');
  const published = (eventId: string) => reader.events().some((e) => e.eventId === eventId);

  beforeAll(async () => {
    await world.setup();
    reader = await new TopicReader(world.kafka, world.codec).start([topic()]);
    world.onTeardown(() => reader.stop());
  });
  afterAll(() => world.teardown());

  it('publishes a backlog of sixty 60 KB rows, parks a row too large alone, holds back only its key, and publishes it once released', async () => {
    // Given the backlog a broker outage leaves: sixty 60 KB requests (legal under POST's 64 KB; 3.6 MB
    // together, over the broker's 1 MiB per partition batch), then a 1.2 MB row for one key followed
    // by two more rows of that key, and a small row of another key after them all
    const sixty = Array.from({ length: 60 }, () => large(60_000));
    const bigKey = randomUUID();
    const tooLarge = large(1_200_000, bigKey);
    const behindIt = [taskRequested(bigKey, 'after the big one, 1'), taskRequested(bigKey, 'after the big one, 2')];
    const otherKey = taskRequested(randomUUID(), 'another key, last');
    for (const event of [...sixty, tooLarge, ...behindIt, otherKey]) await world.db.transaction((trx) => outbox.add(trx, event));

    // When the relay starts (the broker is back)
    relay = await world.relay({ batchSize: 100 });

    // Then every row of other keys is published within seconds, the last one included
    await waitFor(() => [...sixty, otherKey].every((e) => published(e.eventId)), { what: 'the rows of other keys', timeoutMs: 30_000 });
    // And the big row is parked and visible with the two rows it holds back, which stay unpublished
    const [parked] = await waitFor(
      async () => {
        const rows = await listParkedRows(world.db);
        return rows.length === 1 && rows;
      },
      { what: 'the big row parked' },
    );
    expect(parked).toMatchObject({ eventId: tooLarge.eventId, key: bigKey, heldBack: 2 });
    expect(parked.reason).toMatch(/refused by the broker/);
    expect(relay.stats.parked).toBe(1);
    expect(behindIt.some((e) => published(e.eventId))).toBe(false);
    // (each published row is marked by the relay's next read, within a poll interval)
    await waitFor(async () => Number((await world.db('outbox').whereNull('published_at').count('* as n').first())?.n) === 3, {
      what: 'the published rows marked, the three held rows not',
    });
    // And the operator sees it with the dlq CLI
    const listed = (await dlq(world, 'parked', '--service', 'quota', '--json'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(listed).toEqual([expect.objectContaining({ service: 'quota', id: parked.id, eventId: tooLarge.eventId, heldBack: 2 })]);

    // When the operator raises the topic's limit and releases the parked row
    const admin = world.kafka.admin();
    await admin.connect();
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic(), configEntries: [{ name: 'max.message.bytes', value: '3000000' }] }],
    });
    await admin.disconnect();
    expect(await dlq(world, 'release-parked', '--service', 'quota', '--id', parked.id)).toMatch(/released 1 parked row/);

    // Then it is published, and the rows of its key follow it in order
    await waitFor(() => [tooLarge, ...behindIt].every((e) => published(e.eventId)), { what: 'the big row and the rows behind it', timeoutMs: 30_000 });
    const keyOrder = reader.messages.filter((m) => m.key === bigKey).map((m) => m.event?.eventId);
    expect(keyOrder).toEqual([tooLarge.eventId, ...behindIt.map((e) => e.eventId)]);
    expect(await listParkedRows(world.db)).toEqual([]);
  });
});
