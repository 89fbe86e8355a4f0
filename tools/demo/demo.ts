import { randomUUID } from 'node:crypto';
import { loadServiceConfig } from '@app/config';
import { TaskRequested } from '@app/events';
import { createKafka, ensureTopics, EventCodec } from '@app/messaging';
import { healthStatus, RunningService } from '../run/service-process';
import { print, runPlatform } from '../run/run-platform';

/** `npm run demo`: the platform up, every service's health, and one Avro event's round trip. */
async function showcase(services: RunningService[]): Promise<void> {
  print('\nhealth');
  for (const s of services) print(`  ${s.name.padEnd(13)} GET http://127.0.0.1:${s.port}/health -> ${await healthStatus(s.port)}`);

  const config = loadServiceConfig('tasks');
  const codec = new EventCodec(config.schemaRegistryUrl, 'demo.');
  const kafka = createKafka('demo', config.kafkaBrokers);
  const topic = codec.topicFor('TaskRequested');
  await ensureTopics(kafka, [{ topic }]);
  const event: TaskRequested = {
    eventId: randomUUID(),
    eventType: 'TaskRequested',
    occurredAt: Date.now(),
    taskId: randomUUID(),
    userId: 'demo-user',
    correlationId: randomUUID(),
    causationId: null,
    producer: 'demo',
    idempotencyKey: randomUUID(),
    reportType: 'summary',
    input: JSON.stringify({ text: 'quarterly numbers' }),
  };
  const value = await codec.encode(event);
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  const [{ partition, baseOffset }] = await producer.send({ topic, acks: -1, messages: [{ key: event.taskId, value }] });
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: `demo-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const decoded = await new Promise<TaskRequested>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message, partition: p }) => {
        if (p === partition && message.offset === baseOffset) resolve((await codec.decode(message.value as Buffer)) as TaskRequested);
      },
    });
  });
  await consumer.disconnect();

  print(`\nAvro round trip on ${topic} (subject ${topic}-value, schema id ${value.readInt32BE(1)})`);
  print(`  sent     ${value.length} bytes, partition ${partition}, offset ${baseOffset}`);
  print(`  decoded  ${JSON.stringify(decoded)}`);
  print(`  equal to what was sent: ${JSON.stringify(decoded) === JSON.stringify(event)}`);
}

runPlatform(showcase);
