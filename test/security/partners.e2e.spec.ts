import { Kafka, logLevel } from 'kafkajs';
import { defaults } from '@app/config';
import { DomainEvent, topicFor } from '@app/events';
import { EventCodec, localKafkaCredentials } from '@app/kafka';
import { PartnerClient } from '../support/partner';
import { Platform } from '../support/platform';
import { TopicReader } from '../support/topic-reader';
import { asAdmin } from '../support/tokens';
import { uniqueSuffix } from '../support/unique';
import { waitFor } from '../support/wait-for';

/**
 * Two partner companies on one deployment, each with its own principal, topics and users
 * (`<partner>:<id>`): each attack one partner can make on the other is made, and refused by tasks
 * (NOT_YOUR_USER) or by the broker, with nothing of the other partner touched.
 */
describe('partners kept apart', () => {
  // A model call slow enough for a cancel to find the task running
  const platform = new Platform({ PARTNER_DISCOVERY_INTERVAL: '1s', MODEL_TIMEOUT: '10s' });
  const suffix = uniqueSuffix();
  let a: PartnerClient;
  let b: PartnerClient;
  let aOutcomes: TopicReader;
  let bOutcomes: TopicReader;
  const added: PartnerClient[] = [];

  beforeAll(async () => {
    [a, b] = await Promise.all([PartnerClient.add(`pa${suffix}`, platform.env.topicPrefix), PartnerClient.add(`pb${suffix}`, platform.env.topicPrefix)]);
    added.push(a, b);
    await platform.start();
    [aOutcomes, bOutcomes] = await Promise.all([a.outcomes(), b.outcomes()]);
  });
  afterAll(async () => {
    await Promise.all(added.map((partner) => partner.remove()));
    await platform.stop();
  });

  const outcomeIn = (reader: TopicReader, taskId: string, eventType?: string) =>
    waitFor(() => reader.events().find((e) => e.taskId === taskId && (!eventType || e.eventType === eventType)), {
      what: `an outcome of ${taskId}`,
      timeoutMs: 60_000,
    });
  const nothingOf = (reader: TopicReader, taskId: string) => reader.events().filter((e: DomainEvent) => e.taskId === taskId);
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => 'accepted',
      // A producer's retrier wraps the broker's answer as the cause of its own error
      (error: { type?: string; cause?: { type?: string } }) => error.type ?? error.cause?.type ?? String(error),
    );

  it("completes a partner's request for its own user, and its outcome reaches that partner's topic alone", async () => {
    const request = a.request(`${a.name}:alice`);
    await a.publish(request);
    expect(await outcomeIn(aOutcomes, request.taskId)).toMatchObject({ eventType: 'TaskCompleted', userId: `${a.name}:alice` });
    expect(nothingOf(bOutcomes, request.taskId)).toEqual([]);
  });

  it("refuses a partner's request for another partner's user: NOT_YOUR_USER to the one who asked, nothing for the other", async () => {
    const victim = `${b.name}:bob`;
    const quotaBefore = await platform.quota(victim);
    // When partner A asks, on its own topic, for a task of B's user
    const forged = a.request(victim);
    await a.publish(forged);
    // Then A is answered NOT_YOUR_USER on its own topic
    expect(await outcomeIn(aOutcomes, forged.taskId)).toMatchObject({ eventType: 'TaskRejected', reason: 'NOT_YOUR_USER' });
    // And nothing happened for B's user: no task, no debit, nothing on B's topics (a request of B after it is answered first)
    const own = b.request(victim);
    await b.publish(own);
    await outcomeIn(bOutcomes, own.taskId, 'TaskCompleted');
    expect(nothingOf(bOutcomes, forged.taskId)).toEqual([]);
    expect((await fetch(`${platform.url('tasks')}/tasks/${forged.taskId}`, { headers: await asAdmin() })).status).toBe(404);
    expect(await platform.quota(victim)).toMatchObject({ debited: quotaBefore.debited + 1 });
  });

  it("refuses a partner's cancel of another partner's task, and the task runs on to its end", async () => {
    const running = b.request(`${b.name}:carol`, { text: 'slow', simulate: { latencyMs: 4000 } });
    await b.publish(running);
    await waitFor(async () => (await platform.generation(running.taskId)).status === 'running', { what: 'the model call to start' });
    // When A cancels it, once for B's user and once claiming it for a user of its own
    const asVictim = a.cancel(running.taskId, `${b.name}:carol`);
    const asOwn = a.cancel(running.taskId, `${a.name}:carol`);
    await a.publish(asVictim);
    await a.publish(asOwn);
    // Then both are refused to A, the first as NOT_YOUR_USER, the second as a task it does not know
    expect(await outcomeIn(aOutcomes, running.taskId, 'TaskCancelRejected')).toBeDefined();
    const refusals = await waitFor(() => aOutcomes.events().filter((e) => e.taskId === running.taskId).length === 2 && aOutcomes.events(), {
      what: 'both refusals',
    });
    const reasons = refusals.filter((e) => e.taskId === running.taskId).map((e) => (e as { reason?: string }).reason);
    expect(reasons.sort()).toEqual(['NOT_YOUR_USER', 'UNKNOWN_TASK']);
    // And the task completes for B
    expect(await outcomeIn(bOutcomes, running.taskId, 'TaskCompleted')).toMatchObject({ userId: `${b.name}:carol` });
    expect(aOutcomes.events().filter((e) => e.taskId === running.taskId && e.eventType !== 'TaskCancelRejected')).toEqual([]);
  });

  it("refuses, at the broker, a partner reading the other's outcomes or the shared ones, and writing the other's requests", async () => {
    for (const topic of [b.topic('TaskCompleted'), b.topic('TaskRequested'), topicFor('TaskCompleted', platform.env.topicPrefix)]) {
      expect(await refusal(a.read([topic]))).toBe('TOPIC_AUTHORIZATION_FAILED');
    }
    const admin = platform.kafka.admin();
    await admin.connect();
    try {
      const before = await admin.fetchTopicOffsets(b.topic('TaskRequested'));
      expect(await refusal(a.publish(a.request(`${b.name}:bob`), b.topic('TaskRequested')))).toBe('TOPIC_AUTHORIZATION_FAILED');
      expect(await refusal(a.publish(a.request(`${a.name}:alice`), topicFor('TaskRequested', platform.env.topicPrefix)))).toBe('TOPIC_AUTHORIZATION_FAILED');
      expect(await admin.fetchTopicOffsets(b.topic('TaskRequested'))).toEqual(before);
    } finally {
      await admin.disconnect();
    }
  });

  it("refuses a request on the shared topic (the single-partner default, external) for a partner's user", async () => {
    const codec = new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix);
    const external = new Kafka({
      clientId: 'external',
      brokers: [defaults.kafkaBrokers],
      logLevel: logLevel.NOTHING,
      sasl: { mechanism: 'scram-sha-512', ...localKafkaCredentials('external')! },
    });
    const producer = external.producer();
    await producer.connect();
    const shared = await new TopicReader(platform.kafka, codec).start([topicFor('TaskRejected', platform.env.topicPrefix)]);
    const request = { ...a.request(`${a.name}:alice`), producer: 'external' };
    await producer.send({ topic: codec.topicFor('TaskRequested'), acks: -1, messages: [{ key: request.taskId, value: await codec.encode(request) }] });
    expect(await outcomeIn(shared, request.taskId)).toMatchObject({ eventType: 'TaskRejected', reason: 'NOT_YOUR_USER' });
    expect(nothingOf(aOutcomes, request.taskId)).toEqual([]);
    await Promise.all([producer.disconnect(), shared.stop()]);
  });

  it('serves a partner added while the platform runs, within the discovery interval', async () => {
    const c = await PartnerClient.add(`pc${suffix}`, platform.env.topicPrefix);
    added.push(c);
    const cOutcomes = await c.outcomes();
    const request = c.request(`${c.name}:dana`);
    await c.publish(request);
    expect(await outcomeIn(cOutcomes, request.taskId)).toMatchObject({ eventType: 'TaskCompleted' });
  });
});
