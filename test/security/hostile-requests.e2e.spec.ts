import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { Kafka, logLevel, Producer } from 'kafkajs';
import { defaults } from '@app/config';
import { EventOf, newEvent } from '@app/events';
import { EventCodec, localKafkaCredentials } from '@app/kafka';
import { readDeadLetters } from '@app/dead-letters';
import { Platform } from '../support/platform';
import { TopicReader } from '../support/topic-reader';
import { waitFor } from '../support/wait-for';

/**
 * What the lowest-privilege outside principal can publish on purpose: identifiers that read like an
 * outage (PostgreSQL's refusal quotes them, and was once taken for one, stopping the tasks consumer
 * for good) and an input too large to relay. Each is answered alone; the requests behind it go on.
 */
describe('hostile outside requests on task-requested', () => {
  const platform = new Platform();
  const codec = new EventCodec(defaults.schemaRegistryUrl);
  let external: Producer;
  let outcomes: TopicReader;
  beforeAll(async () => {
    await platform.start();
    Object.assign(codec, { topicPrefix: platform.env.topicPrefix });
    const kafka = new Kafka({
      clientId: 'hostile-partner',
      brokers: [defaults.kafkaBrokers],
      logLevel: logLevel.NOTHING,
      sasl: { mechanism: 'scram-sha-512', ...localKafkaCredentials('external')! },
    });
    external = kafka.producer();
    await external.connect();
    outcomes = await new TopicReader(platform.kafka, codec).start(['task-completed', 'task-rejected'].map((t) => `${platform.env.topicPrefix}${t}`));
  });
  afterAll(async () => {
    await external?.disconnect();
    await outcomes?.stop();
    await platform.stop();
  });

  const request = (userId: string, fields: Partial<EventOf<'TaskRequested'>> = {}) => ({
    ...newEvent(
      'TaskRequested',
      { idempotencyKey: null, reportType: 'summary', input: '{"text":"Q3"}' },
      { taskId: randomUUID(), userId, correlationId: randomUUID(), causationId: null },
      'partner',
    ),
    ...fields,
  });
  /** All on one partition, in this order: the bad ones ahead of the good one. */
  async function publish(...events: Array<EventOf<'TaskRequested'>>) {
    const messages = await Promise.all(events.map(async (event) => ({ key: event.taskId, value: await codec.encode(event), partition: 0 })));
    await external.send({ topic: codec.topicFor('TaskRequested'), acks: -1, messages });
  }
  const outcomeOf = (taskId: string) =>
    waitFor(() => outcomes.events().find((e) => e.taskId === taskId), { what: `an outcome for ${taskId}`, timeoutMs: 90_000 });

  it('dead-letters each request whose eventId or taskId reads like an outage, alone, and completes the valid one behind them', async () => {
    // Given requests whose ids PostgreSQL would refuse, quoting them, and a valid one behind them on the same partition
    const outageWords = ['fetch failed', 'ECONNREFUSED 127.0.0.1:5432', 'Connection terminated unexpectedly'];
    const hostile = outageWords.flatMap((words) => [request('external:hostile-ids', { eventId: words }), request('external:hostile-ids', { taskId: words })]);
    const valid = request('external:hostile-neighbour');

    // When the outside principal publishes them
    await publish(...hostile, valid);

    // Then the valid request completes
    expect(await outcomeOf(valid.taskId)).toMatchObject({ eventType: 'TaskCompleted' });
    // And each hostile one was dead-lettered by tasks with its reason, naming the field
    const letters = await waitFor(
      async () => {
        const found = (await readDeadLetters(platform.kafka, `${platform.env.topicPrefix}tasks`)).filter((l) => l.errorCode === 'INVALID_EVENT');
        return found.length >= hostile.length && found;
      },
      { what: 'tasks to dead-letter every hostile request' },
    );
    expect(letters).toHaveLength(hostile.length);
    for (const words of outageWords) {
      expect(letters.some((l) => l.errorMessage.includes(`eventId must be a UUID, got ${JSON.stringify(words)}`))).toBe(true);
      expect(letters.some((l) => l.errorMessage.includes(`taskId must be a UUID, got ${JSON.stringify(words)}`))).toBe(true);
    }
    // And every consumer caught up: nothing stalls behind them
    await platform.consumersCaughtUp();
    expect((await platform.get('tasks', '/tasks?userId=external:hostile-ids')).items).toEqual([]);
    expect(await platform.quota('external:hostile-ids')).toMatchObject({ debited: 0 });
  });

  it('rejects an outside request over the body limit as INPUT_TOO_LARGE before anything is sealed or written, and the next one completes', async () => {
    // Given a 200 KB input: within the request topic's limit (256 KiB: a larger record the broker refuses), over HTTP's 64 KB
    const oversized = request('external:hostile-bulk', { input: JSON.stringify({ text: 'x'.repeat(200 * 1024) }) });
    const next = request('external:hostile-bulk');

    // When the partner publishes it, then a normal request
    await publish(oversized, next);

    // Then the first is rejected as too large, and the second completes
    expect(await outcomeOf(oversized.taskId)).toMatchObject({ eventType: 'TaskRejected', reason: 'INPUT_TOO_LARGE' });
    expect(await outcomeOf(next.taskId)).toMatchObject({ eventType: 'TaskCompleted' });
    // And no outbox row of tasks was parked, and only the second was charged
    const db = new Client({ connectionString: platform.env.databaseUrl('tasks') });
    await db.connect();
    try {
      const { rows } = await db.query<{ parked: string; large: string }>(
        `select count(*) filter (where parked_at is not null) as parked, count(*) filter (where octet_length(payload::text) > 65536) as large from outbox`,
      );
      expect(rows[0]).toEqual({ parked: '0', large: '0' });
    } finally {
      await db.end();
    }
    expect(await platform.quota('external:hostile-bulk')).toMatchObject({ debited: 1 });
  });
});
