/**
 * How another system uses the task platform, with nothing of this repository but its contract:
 * kafkajs and the Confluent schema-registry client only.
 *
 *   npx ts-node examples/request-report.ts --user alice --key order-42 --input '{"text":"Q3"}' [--task-id <uuid>]
 *
 * Publishes one TaskRequested (Avro, the registry's latest schema of `task-requested-value`, key =
 * taskId), then reads the outcome topics until this task's TaskCompleted, TaskFailed or TaskRejected
 * arrives, and prints it as one JSON line. KAFKA_BROKERS, SCHEMA_REGISTRY_URL and TOPIC_PREFIX as for
 * the services; it connects as the `external` principal with KAFKA_USERNAME and KAFKA_PASSWORD
 * (SCRAM-SHA-512; `npm run -s kafka:credentials -- external` prints them for the local stack), over
 * TLS with KAFKA_SSL=on and KAFKA_SSL_CA. Its consumer groups start with `external-`, as its ACLs ask.
 * It reads the registry as `external` too, with SCHEMA_REGISTRY_USERNAME and SCHEMA_REGISTRY_PASSWORD
 * (HTTP Basic; the same command prints them).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Kafka, KafkaConfig, logLevel } from 'kafkajs';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';

const brokers = (process.env.KAFKA_BROKERS || '127.0.0.1:19092').split(',');
const registryUrl = process.env.SCHEMA_REGISTRY_URL || 'http://127.0.0.1:18081/apis/ccompat/v7';
const prefix = process.env.TOPIC_PREFIX || '';

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
    topic: `${prefix}task-requested`,
    acks: -1,
    messages: [{ key: event.taskId, value: await registry.encode(schemaId, event), headers: { eventId: event.eventId, eventType: event.eventType } }],
  });
  await producer.disconnect();
}

/** Deliveries are at least once: an outcome is recognised by taskId, a repeat by its eventId. */
async function awaitOutcome(kafka: Kafka, registry: SchemaRegistry, taskId: string): Promise<Record<string, unknown>> {
  const consumer = kafka.consumer({ groupId: `${prefix}external-example-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topics: ['task-completed', 'task-failed', 'task-rejected'].map((t) => `${prefix}${t}`), fromBeginning: true });
  const outcome = await new Promise<Record<string, unknown>>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        if (message.key?.toString() !== taskId) return;
        resolve((await registry.decode(message.value as Buffer)) as Record<string, unknown>);
      },
    });
  });
  await consumer.disconnect();
  return outcome;
}

async function main(): Promise<void> {
  const userId = argument('user');
  const key = argument('key');
  if (!userId || !key) throw new Error('usage: request-report.ts --user <userId> --key <idempotencyKey> [--input <json>] [--task-id <uuid>]');
  const taskId = argument('task-id') ?? randomUUID();
  const kafka = new Kafka({ clientId: 'example', brokers, logLevel: logLevel.ERROR, ...security() });
  const { SCHEMA_REGISTRY_USERNAME: username, SCHEMA_REGISTRY_PASSWORD: password } = process.env;
  const registry = new SchemaRegistry({ host: registryUrl, ...(username && password ? { auth: { username, password } } : {}) });
  await publishRequest(kafka, registry, { taskId, userId, key, input: argument('input') ?? '{}' });
  const outcome = await awaitOutcome(kafka, registry, taskId);
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  },
);
