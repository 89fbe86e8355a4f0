import * as fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, KafkaConfig, logLevel, ResourcePatternTypes } from 'kafkajs';
import { localAuthFiles } from '@app/auth';
import { defaults } from '@app/config';
import { eventTypes, newEvent, topicFor } from '@app/events';
import { KafkaPrincipal, redriveLogTopic, redriveRequestTopic, serviceEvents } from '@app/catalogue';
import { EventCodec, localKafkaCredentials } from '@app/kafka';
import { loadStackConfig } from '../../tools/stack/stack.config';
import { removeTestData } from '../support/remove-test-data';
import { TestEnv } from '../support/test-env';

/** The broker enforces who may do what: every client authenticates, and each principal has only its grants. */
describe('Kafka principals and ACLs', () => {
  const env = new TestEnv();
  const stack = loadStackConfig();
  const codec = new EventCodec(defaults.schemaRegistryUrl, env.topicPrefix);
  const clients: Array<{ disconnect(): Promise<void> }> = [];

  const as = (principal: KafkaPrincipal | 'nobody', overrides: Partial<KafkaConfig> = {}) =>
    new Kafka({
      clientId: `acl-test-${principal}`,
      brokers: [defaults.kafkaBrokers],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      connectionTimeout: 3000,
      ...(principal === 'nobody' ? {} : { sasl: { mechanism: 'scram-sha-512', ...localKafkaCredentials(principal)! } }),
      ...overrides,
    });
  async function producerOf(kafka: Kafka) {
    const producer = kafka.producer();
    await producer.connect();
    clients.push(producer);
    return producer;
  }
  const event = (type: 'TaskRequested' | 'QuotaRefunded' | 'GenerationFailed') => {
    const origin = { taskId: randomUUID(), userId: 'acl-user', correlationId: randomUUID(), causationId: null };
    if (type === 'TaskRequested') return newEvent(type, { idempotencyKey: null, reportType: 'summary', input: '{}' }, origin, 'external');
    if (type === 'QuotaRefunded') return newEvent(type, { amount: 1, balanceAfter: 11 }, origin, 'external');
    return newEvent(type, { attempts: 1, errorClass: 'PERMANENT', errorCode: 'MODEL_REJECTED', reason: 'forged' }, origin, 'quota');
  };
  const send = async (kafka: Kafka, type: 'TaskRequested' | 'QuotaRefunded' | 'GenerationFailed') => {
    const producer = await producerOf(kafka);
    const value = await codec.encode(event(type));
    return producer.send({ topic: topicFor(type, env.topicPrefix), acks: -1, messages: [{ value }] });
  };

  beforeAll(() => env.provision());
  afterAll(async () => {
    for (const client of clients) await client.disconnect().catch(() => undefined);
    await removeTestData(as('admin'), env.topicPrefix);
  });

  it('refuses a client without credentials, on the client port and on the controller port', async () => {
    const anonymous = as('nobody').admin();
    await expect(anonymous.connect().then(() => anonymous.listTopics())).rejects.toThrow();
    await anonymous.disconnect().catch(() => undefined);
    const controller = as('nobody', { brokers: [`127.0.0.1:${stack.kafka.controllerPort}`] }).admin();
    await expect(controller.connect().then(() => controller.listTopics())).rejects.toThrow();
    await controller.disconnect().catch(() => undefined);
  });

  it("lets quota's principal write its own events only, and create neither a topic nor an ACL", async () => {
    const quota = as('quota');
    await expect(send(quota, 'GenerationFailed')).rejects.toThrow(/authoriz/i);
    const admin = quota.admin();
    await admin.connect();
    clients.push(admin);
    await expect(admin.createTopics({ topics: [{ topic: `${env.topicPrefix}quota-made-this` }] })).rejects.toThrow();
    await expect(
      admin.createAcls({
        acl: [
          {
            resourceType: AclResourceTypes.TOPIC,
            resourceName: '*',
            resourcePatternType: ResourcePatternTypes.LITERAL,
            principal: 'User:quota',
            host: '*',
            operation: AclOperationTypes.ALL,
            permissionType: AclPermissionTypes.ALLOW,
          },
        ],
      }),
    ).rejects.toThrow();
    const byAdmin = as('admin').admin();
    await byAdmin.connect();
    clients.push(byAdmin);
    expect(await byAdmin.listTopics()).not.toContain(`${env.topicPrefix}quota-made-this`);
  });

  it('lets the outside world publish task-requested, but not quota-refunded', async () => {
    const external = as('external');
    await expect(send(external, 'TaskRequested')).resolves.toBeDefined();
    await expect(send(external, 'QuotaRefunded')).rejects.toThrow(/authoriz/i);
  });

  it("refuses the console's principal every event topic: it can ask a service to re-drive, not mint an event", async () => {
    const console = await producerOf(as('console'));
    const origin = { taskId: randomUUID(), userId: 'acl-user', correlationId: randomUUID(), causationId: null };
    // The three a compromised console would forge first: an erasure, an acceptance, a refund.
    const forged = [
      newEvent('UserErasureRequested', { requestedBy: 'console' }, origin, 'tasks'),
      newEvent('TaskAccepted', { idempotencyKey: null, reportType: 'summary', input: '{}' }, origin, 'tasks'),
      newEvent('QuotaRefunded', { amount: 1, balanceAfter: 11 }, origin, 'quota'),
    ];
    for (const event of forged) {
      const value = await codec.encode(event);
      await expect(console.send({ topic: topicFor(event.eventType, env.topicPrefix), acks: -1, messages: [{ value }] })).rejects.toThrow(/authoriz/i);
    }
    // And every other event topic, and the logs only the services write.
    for (const type of eventTypes) {
      await expect(console.send({ topic: topicFor(type, env.topicPrefix), acks: -1, messages: [{ value: 'x' }] })).rejects.toThrow(/authoriz/i);
    }
    for (const service of Object.keys(serviceEvents)) {
      await expect(console.send({ topic: redriveLogTopic(`${env.topicPrefix}${service}`), acks: -1, messages: [{ value: '{}' }] })).rejects.toThrow(
        /authoriz/i,
      );
    }
    // Nothing reached a topic: each is still empty.
    const admin = as('admin').admin();
    await admin.connect();
    clients.push(admin);
    for (const event of forged) {
      const offsets = await admin.fetchTopicOffsets(topicFor(event.eventType, env.topicPrefix));
      expect(offsets.map((o) => o.high)).toEqual(offsets.map(() => '0'));
    }
    // What it may do is ask.
    await expect(console.send({ topic: redriveRequestTopic(`${env.topicPrefix}tasks`), acks: -1, messages: [{ value: '{}' }] })).resolves.toBeDefined();
  });

  it('connects over SASL_SSL with the CA, and fails without it', async () => {
    const ca = fs.readFileSync(localAuthFiles().kafkaCa, 'utf8');
    const tlsBrokers = [`127.0.0.1:${stack.kafka.tlsPort}`];
    const trusted = as('admin', { brokers: tlsBrokers, ssl: { ca: [ca] } }).admin();
    await trusted.connect();
    clients.push(trusted);
    expect(await trusted.listTopics()).toContain(topicFor('TaskRequested', env.topicPrefix));
    const untrusting = as('admin', { brokers: tlsBrokers, ssl: true }).admin();
    clients.push(untrusting);
    await expect(untrusting.connect()).rejects.toThrow(/certificate/i);
  });
});
