import { randomBytes, randomUUID } from 'node:crypto';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { deadLetterTopicFor, partnerPrincipal } from '@app/catalogue';
import { defaults } from '@app/config';
import { readDeadLetters } from '@app/dead-letters';
import { newEvent } from '@app/events';
import { EventCodec, localKafkaCredentials } from '@app/kafka';
import { deadLetterRecordMaxBytes, requestRecordMaxBytes } from '@app/kafka-admin';
import { PartnerClient } from '../support/partner';
import { Platform } from '../support/platform';
import { TopicReader } from '../support/topic-reader';
import { asAdmin, authAs } from '../support/tokens';
import { uniqueSuffix } from '../support/unique';
import { waitFor } from '../support/wait-for';

/**
 * Tenants as wholes (round two): what a user, a partner or a partner's removal does to everyone
 * else, each attack made on the real stack and then checked to have reached no other tenant.
 */
describe('tenants kept apart as wholes', () => {
  // A model call slow enough for the partner's removal to find its task running
  const platform = new Platform({ PARTNER_DISCOVERY_INTERVAL: '1s', OUTBOX_PARKED_RETRY: '500ms', MODEL_TIMEOUT: '10s' });
  const suffix = uniqueSuffix();
  const added: PartnerClient[] = [];
  let partner: PartnerClient;
  let outcomes: TopicReader;

  beforeAll(async () => {
    partner = await PartnerClient.add(`tn${suffix}`, platform.env.topicPrefix);
    added.push(partner);
    await platform.start();
    outcomes = await partner.outcomes();
  });
  afterAll(async () => {
    await Promise.all(added.map((p) => p.remove().catch(() => undefined)));
    await platform.stop();
  });

  const list = async (userId: string, path: string) => {
    const response = await fetch(`${platform.url('tasks')}${path}`, { headers: await authAs(userId) });
    return { status: response.status, body: (await response.json()) as { items: Array<{ taskId: string }>; total: number } };
  };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => 'accepted',
      // A producer's retrier wraps the broker's answer as the cause of its own error
      (error: { type?: string; cause?: { type?: string } }) => error.type ?? error.cause?.type ?? String(error),
    );
  const outcomeOf = (taskId: string) =>
    waitFor(() => outcomes.events().find((e) => e.taskId === taskId), { what: `an outcome of ${taskId} on the partner's topic`, timeoutMs: 60_000 });

  it("shows a user named like an internal marker (everyone) only that user's own tasks and counts", async () => {
    // Given other users' tasks, and one of a user whose id is `everyone`
    const others = [await platform.submit('tenant-ann'), await platform.submit('tenant-bob')];
    const own = await platform.submit('everyone');
    expect([...others, own].map((s) => s.status)).toEqual([202, 202, 202]);
    // When that user lists and counts tasks, as itself and naming itself
    for (const path of ['/tasks', '/tasks?userId=everyone', '/tasks?limit=100']) {
      const { status, body } = await list('everyone', path);
      // Then it sees its own task alone
      expect(status).toBe(200);
      expect(body.items.map((t) => t.taskId)).toEqual([own.body.taskId]);
    }
    const counts = await list('everyone', '/tasks/counts');
    expect(counts.body.total).toBe(1);
    // And all users' tasks stay an operator's: the caller's `*` is refused
    expect((await list('everyone', '/tasks?userId=*')).status).toBe(403);
  });

  it('lets the single-partner default (external) act only for its own users, never charging an HTTP user', async () => {
    // Given an HTTP user with a task of its own, and the default's producer on the shared request topic
    const victim = `tenant-victim-${suffix}`;
    const ownTask = (await platform.submit(victim)).body.taskId as string;
    await platform.settled(ownTask);
    const before = await platform.quota(victim);
    const codec = new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix);
    const shared = await new TopicReader(platform.kafka, codec).start([
      `${platform.env.topicPrefix}task-rejected`,
      `${platform.env.topicPrefix}task-completed`,
    ]);
    const kafka = new Kafka({
      brokers: [defaults.kafkaBrokers],
      logLevel: logLevel.NOTHING,
      sasl: { mechanism: 'scram-sha-512', ...localKafkaCredentials('external')! },
    });
    const producer = kafka.producer();
    await producer.connect();
    const ask = (userId: string) =>
      newEvent(
        'TaskRequested',
        { idempotencyKey: null, reportType: 'summary', input: '{"text":"charge me"}' },
        { taskId: randomUUID(), userId, correlationId: randomUUID(), causationId: null },
        'partner',
      );
    const forVictim = ask(victim);
    const forOwnUser = ask(`external:tenant-${suffix}`);
    try {
      // When external asks for the HTTP user, then for a user of its own namespace
      const messages = await Promise.all([forVictim, forOwnUser].map(async (e) => ({ key: e.taskId, value: await codec.encode(e), partition: 0 })));
      await producer.send({ topic: codec.topicFor('TaskRequested'), acks: -1, messages });
      const outcome = (taskId: string) =>
        waitFor(() => shared.events().find((e) => e.taskId === taskId), { what: `an outcome of ${taskId}`, timeoutMs: 60_000 });
      // Then the first is refused as not its user, and the second runs
      expect(await outcome(forVictim.taskId)).toMatchObject({ eventType: 'TaskRejected', reason: 'NOT_YOUR_USER' });
      expect(await outcome(forOwnUser.taskId)).toMatchObject({ eventType: 'TaskCompleted' });
    } finally {
      await producer.disconnect();
      await shared.stop();
    }
    // And the HTTP user was charged nothing, and has no task it did not ask for
    await platform.consumersCaughtUp();
    expect(await platform.quota(victim)).toMatchObject({ debited: before.debited, balance: before.balance });
    expect((await list(victim, '/tasks')).body.items.map((t) => t.taskId)).toEqual([ownTask]);
  });

  it("refuses a partner whose name extends another's (its group grant would cover the other's groups), either way round, leaving nothing of it", async () => {
    // When a partner named as the existing one plus `-corp` is added
    const longer = `${partner.name}-corp`;
    await expect(PartnerClient.add(longer, platform.env.topicPrefix)).rejects.toThrow(/overlap/);
    // Then nothing of it was made: no credentials, no topic
    expect(localKafkaCredentials(partnerPrincipal(longer))).toBeUndefined();
    const admin = platform.kafka.admin();
    await admin.connect();
    try {
      expect((await admin.listTopics()).filter((topic) => topic.includes(`partner.${longer}.`))).toEqual([]);
    } finally {
      await admin.disconnect();
    }
    // And the other way round: a partner whose name another one extends is refused too
    const corp = await PartnerClient.add(`tm${suffix}-corp`, platform.env.topicPrefix);
    added.push(corp);
    await expect(PartnerClient.add(`tm${suffix}`, platform.env.topicPrefix)).rejects.toThrow(/overlap/);
    expect(localKafkaCredentials(partnerPrincipal(`tm${suffix}`))).toBeUndefined();
  });

  it('holds outside request topics far under what a dead letter may take, and dead-letters a near-limit record once, with no loop and no header of the sender obeyed', async () => {
    const admin = platform.kafka.admin();
    await admin.connect();
    const deadLetters = deadLetterTopicFor(`${platform.env.topicPrefix}tasks`);
    try {
      // Given the topics' limits as provisioning set them
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [partner.topic('TaskRequested'), deadLetters].map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: ['max.message.bytes'] })),
      });
      const limit = (name: string) => Number(resources.find((r) => r.resourceName === name)?.configEntries[0].configValue);
      expect(limit(partner.topic('TaskRequested'))).toBe(requestRecordMaxBytes);
      expect(limit(deadLetters)).toBe(deadLetterRecordMaxBytes);
    } finally {
      await admin.disconnect();
    }
    // When the partner sends a record over the request limit, it is refused by the broker
    const producer = partner.kafka.producer();
    await producer.connect();
    const behind = partner.request(`${partner.name}:after-garbage`);
    try {
      const tooLarge = { key: 'x', value: randomBytes(requestRecordMaxBytes + 1024) };
      expect(await refusal(producer.send({ topic: partner.topic('TaskRequested'), acks: -1, messages: [tooLarge] }))).toBe('MESSAGE_TOO_LARGE');
      // When it sends a garbage record a few KB under the limit, with dead-letter headers of its own, then a valid request behind it on the same partition
      // (its first byte is not the wire format's magic byte 0, or the decoder would look its next four up as a schema id: UNKNOWN_SCHEMA 1 time in 256)
      const garbage = randomBytes(requestRecordMaxBytes - 4096);
      garbage[0] = 0xff;
      const nearLimit = {
        key: 'garbage',
        value: garbage,
        partition: 0,
        headers: { 'dlq-redrives': '7', 'dlq-error-code': 'FORGED', 'DLQ-Consumer': 'quota' },
      };
      const valid = { key: behind.taskId, value: await partner.codec.encode(behind), partition: 0 };
      await producer.send({ topic: partner.topic('TaskRequested'), acks: -1, messages: [nearLimit, valid] });
    } finally {
      await producer.disconnect();
    }
    // Then the valid request completes (the partition moved on)
    expect(await outcomeOf(behind.taskId)).toMatchObject({ eventType: 'TaskCompleted' });
    // And the garbage is one dead letter, whole, for the reason the platform found, not parked, with none of the sender's dlq headers
    const letters = (await readDeadLetters(platform.kafka, `${platform.env.topicPrefix}tasks`)).filter(
      (l) => l.originalTopic === partner.topic('TaskRequested'),
    );
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ errorCode: 'DECODE_FAILED', parked: false });
    expect(letters[0].value?.length).toBe(requestRecordMaxBytes - 4096);
    expect(letters[0].headers['dlq-consumer']).toMatch(/tasks$/);
    expect(Object.keys(letters[0].headers).filter((h) => h.toLowerCase() === 'dlq-consumer')).toEqual(['dlq-consumer']);
  });

  it('lets a partner be removed while its user’s task runs without stopping, slowing or charging any other tenant, and serves it again once added back', async () => {
    // Given a task of the partner's user running (a slow model call)
    const running = partner.request(`${partner.name}:slow`, { text: 'slow', simulate: { latencyMs: 3000 } });
    await partner.publish(running);
    await waitFor(async () => (await platform.generation(running.taskId)).status === 'running', { what: 'the model call to start' });
    // When the partner is removed (its credentials and grants withdrawn) meanwhile, and other users go on asking
    await partner.remove();
    const quotaBefore = await platform.quota('tenant-carol');
    const others = [];
    for (let i = 0; i < 6; i++) others.push((await platform.submit(i % 2 ? 'tenant-carol' : 'tenant-dan')).body.taskId as string);
    // Then every other user's task succeeds, each within a bound no removal could explain
    for (const taskId of others) expect((await platform.settled(taskId, 60_000)).state).toBe('SUCCESS');
    expect((await platform.quota('tenant-carol')).debited).toBe(quotaBefore.debited + 3);
    // And the removed partner's task ends too, on the shared topics
    await waitFor(async () => (await platform.task(running.taskId)).state === 'SUCCESS', { what: "the removed partner's task to end" });
    // And whatever is parked is that partner's copies alone, holding back nothing of another destination
    const parked = (await (await fetch(`${platform.url('tasks')}/outbox/parked`, { headers: await asAdmin() })).json()) as {
      items: Array<{ destination: string; heldBack: number }>;
    };
    expect(parked.items.every((row) => row.destination.includes(`partner.${partner.name}.`))).toBe(true);
    // And tasks is healthy: its consumer took the partner's topics out of its subscription
    await waitFor(async () => (await fetch(`${platform.url('tasks')}/health`)).status === 200, { what: 'tasks healthy', timeoutMs: 60_000 });

    // When the partner is added back, it is served again
    partner = await PartnerClient.add(partner.name, platform.env.topicPrefix);
    added.push(partner);
    outcomes = await partner.outcomes();
    const again = partner.request(`${partner.name}:back`);
    await waitFor(
      async () => {
        await partner.publish(again);
        return true;
      },
      { what: 'the partner to write again' },
    );
    expect(await outcomeOf(again.taskId)).toMatchObject({ eventType: 'TaskCompleted' });
  });
});
