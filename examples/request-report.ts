/**
 * How another system uses the task platform, with nothing of this repository but its contract:
 * kafkajs and the Confluent schema-registry client only.
 *
 *   npx ts-node examples/request-report.ts --user acme:alice --key order-42 --input '{"text":"Q3"}' [--task-id <uuid>]
 *   npx ts-node examples/request-report.ts --user acme:alice --cancel <taskId>
 *
 * Publishes one TaskRequested (Avro, the registry's latest schema of `task-requested-value`, key =
 * taskId), then reads the outcome topics until this task's TaskCompleted, TaskFailed or TaskRejected
 * arrives, and prints it as one JSON line. With --cancel, publishes TaskCancelRequested for that task
 * instead, and prints the answer: TaskFailed{errorCode: CANCELLED}, or TaskCancelRejected.
 * KAFKA_BROKERS, SCHEMA_REGISTRY_URL and TOPIC_PREFIX as for the services. PARTNER names the partner
 * it acts as (`npm run partner:add -- <name>` made it): it writes and reads that partner's own topics
 * (`partner.<name>.task-requested`, …), in consumer groups `partner-<name>-…`, for users `<name>:<id>`.
 * It connects with that partner's KAFKA_USERNAME and KAFKA_PASSWORD (SCRAM-SHA-512; `npm run -s
 * kafka:credentials -- partner-<name>` prints them, and the registry's SCHEMA_REGISTRY_USERNAME and
 * SCHEMA_REGISTRY_PASSWORD), over TLS with KAFKA_SSL=on and KAFKA_SSL_CA. Without PARTNER it acts as
 * the single-partner default `external` on the shared topics, for users `external:<id>` alone
 * (deprecated: docs/ingress.md).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Kafka, KafkaConfig, logLevel } from 'kafkajs';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';

const brokers = (process.env.KAFKA_BROKERS || '127.0.0.1:19092').split(',');
const registryUrl = process.env.SCHEMA_REGISTRY_URL || 'http://127.0.0.1:18081/apis/ccompat/v7';
const prefix = process.env.TOPIC_PREFIX || '';
const partner = process.env.PARTNER || '';
/** A topic this system writes or reads: its partner's own, or the shared one. */
const topic = (name: string) => (partner ? `${prefix}partner.${partner}.${name}` : `${prefix}${name}`);
/** Its consumer groups' names start as its principal's ACLs ask. */
const groupPrefix = partner ? `${prefix}partner-${partner}-` : `${prefix}external-`;

/** SASL/SCRAM credentials and TLS, from the environment. */
function security(): Pick<KafkaConfig, 'sasl' | 'ssl'> {
  const { KAFKA_USERNAME: username, KAFKA_PASSWORD: password, KAFKA_SSL, KAFKA_SSL_CA } = process.env;
  return {
    ...(username && password ? { sasl: { mechanism: 'scram-sha-512' as const, username, password } } : {}),
    ...(KAFKA_SSL === 'on' || KAFKA_SSL_CA ? { ssl: KAFKA_SSL_CA ? { ca: [readFileSync(KAFKA_SSL_CA, 'utf8')] } : true } : {}),
  };
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function publishRequest(kafka: Kafka, registry: SchemaRegistry, request: { taskId: string; userId: string; key: string; input: string }) {
  const subject = `${prefix}task-requested-value`;
  const schemaId = await registry.getLatestSchemaId(subject);
  const event = {
    eventId: randomUUID(),
    eventType: 'TaskRequested',
    occurredAt: Date.now(),
    taskId: request.taskId,
    userId: request.userId,
    correlationId: randomUUID(),
    causationId: null,
    producer: 'example-producer',
    idempotencyKey: request.key,
    reportType: 'summary',
    input: request.input,
  };
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  await producer.send({
    topic: topic('task-requested'),
    acks: -1,
    messages: [{ key: event.taskId, value: await registry.encode(schemaId, event), headers: { eventId: event.eventId, eventType: event.eventType } }],
  });
  await producer.disconnect();
}

/** Asks the platform to cancel a task of `userId`; gives the request's eventId, by which its refusal is recognised. */
async function publishCancel(kafka: Kafka, registry: SchemaRegistry, taskId: string, userId: string): Promise<string> {
  const schemaId = await registry.getLatestSchemaId(`${prefix}task-cancel-requested-value`);
  const event = {
    eventId: randomUUID(),
    eventType: 'TaskCancelRequested',
    occurredAt: Date.now(),
    taskId,
    userId,
    correlationId: randomUUID(),
    causationId: null,
    producer: 'example-producer',
  };
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  await producer.send({
    topic: topic('task-cancel-requested'),
    acks: -1,
    messages: [{ key: taskId, value: await registry.encode(schemaId, event), headers: { eventId: event.eventId, eventType: event.eventType } }],
  });
  await producer.disconnect();
  return event.eventId;
}

type Answer = Record<string, unknown>;

/** Deliveries are at least once: an outcome is recognised by taskId, a repeat by its eventId. */
async function awaitOutcome(kafka: Kafka, registry: SchemaRegistry, topics: string[], isAnswer: (event: Answer) => boolean): Promise<Answer> {
  const consumer = kafka.consumer({ groupId: `${groupPrefix}example-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topics: topics.map(topic), fromBeginning: true });
  const outcome = await new Promise<Answer>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        const event = (await registry.decode(message.value as Buffer)) as Answer;
        if (isAnswer(event)) resolve(event);
      },
    });
  });
  await consumer.disconnect();
  return outcome;
}

async function main(): Promise<void> {
  const userId = argument('user');
  const key = argument('key');
  const cancel = argument('cancel');
  if (!userId || (!key && !cancel)) {
    throw new Error('usage: request-report.ts --user <userId> (--key <idempotencyKey> [--input <json>] [--task-id <uuid>] | --cancel <taskId>)');
  }
  const taskId = argument('task-id') ?? randomUUID();
  const kafka = new Kafka({ clientId: 'example', brokers, logLevel: logLevel.ERROR, ...security() });
  const { SCHEMA_REGISTRY_USERNAME: username, SCHEMA_REGISTRY_PASSWORD: password } = process.env;
  const registry = new SchemaRegistry({ host: registryUrl, ...(username && password ? { auth: { username, password } } : {}) });
  if (cancel) {
    const requestId = await publishCancel(kafka, registry, cancel, userId);
    // The cancel's answer: the task's TaskFailed{CANCELLED}, or the refusal of this very request.
    const answer = await awaitOutcome(kafka, registry, ['task-failed', 'task-cancel-rejected'], (event) =>
      event.eventType === 'TaskCancelRejected' ? event.causationId === requestId : event.taskId === cancel && event.errorCode === 'CANCELLED',
    );
    process.stdout.write(`${JSON.stringify(answer)}\n`);
    return;
  }
  await publishRequest(kafka, registry, { taskId, userId, key: key!, input: argument('input') ?? '{}' });
  const outcome = await awaitOutcome(kafka, registry, ['task-completed', 'task-failed', 'task-rejected'], (event) => event.taskId === taskId);
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  },
);
