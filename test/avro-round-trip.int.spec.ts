import { randomUUID } from 'node:crypto';
import { defaults } from '@app/config';
import { loadSchema, TaskRequested } from '@app/events';
import { createKafka, ensureTopics, EventCodec } from '@app/kafka';
import { registryAuthorization } from './support/registry-authorization';
import { removeTestData } from './support/remove-test-data';
import { uniqueSuffix } from './support/unique';
import { waitFor } from './support/wait-for';

describe('an Avro event on the real broker and registry', () => {
  const prefix = `t${uniqueSuffix()}.`;
  const kafka = createKafka('avro-round-trip', [defaults.kafkaBrokers]);
  const codec = new EventCodec(defaults.schemaRegistryUrl, prefix);
  const producer = kafka.producer({ idempotent: true });
  const consumer = kafka.consumer({ groupId: `${prefix}round-trip` });

  afterAll(async () => {
    await consumer.disconnect();
    await producer.disconnect();
    await removeTestData(kafka, prefix);
  });

  it('is produced Confluent-framed under <topic>-value and consumed back decoded, equal to what was sent', async () => {
    // Given
    const topic = codec.topicFor('TaskRequested');
    await ensureTopics(kafka, [{ topic }]);
    await codec.register('TaskRequested'); // provisioning's part: the test process is admin
    const event: TaskRequested = {
      eventId: randomUUID(),
      eventType: 'TaskRequested',
      occurredAt: Date.now(),
      taskId: randomUUID(),
      userId: 'user-1',
      correlationId: randomUUID(),
      causationId: null,
      producer: 'avro-round-trip-test',
      idempotencyKey: 'key-1',
      reportType: 'summary',
      input: JSON.stringify({ text: 'hello' }),
    };
    const received: Buffer[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void received.push(message.value as Buffer) });

    // When
    await producer.connect();
    const value = await codec.encode(event);
    await producer.send({ topic, acks: -1, messages: [{ key: event.taskId, value }] });

    // Then
    const [bytes] = await waitFor(() => received.length > 0 && received, { what: 'the event to be consumed' });
    expect(bytes[0]).toBe(0); // Confluent magic byte, then a 4-byte schema id
    expect(bytes.readInt32BE(1)).toBe(await codec.schemaId('TaskRequested'));
    expect(await codec.decode(bytes)).toEqual(event);
    // (asked by name: the registry's subject listing is paged, and the shared registry holds many)
    const versions = await fetch(`${defaults.schemaRegistryUrl}/subjects/${encodeURIComponent(`${topic}-value`)}/versions`, {
      headers: registryAuthorization(),
    });
    expect(versions.status).toBe(200);
    expect(await versions.json()).toEqual([1]);
  });

  it('registers over an interrupted first registration: the subject made without its rule gets BACKWARD', async () => {
    // Given a subject whose first registration stopped after the version was written, before its rule
    // (what a registration cut off by its deadline leaves; Apicurio then reads the rule as NONE)
    const subject = `${codec.topicFor('QuotaDebited')}-value`;
    const url = `${defaults.schemaRegistryUrl}/subjects/${encodeURIComponent(subject)}/versions`;
    const headers = { 'content-type': 'application/vnd.schemaregistry.v1+json', ...registryAuthorization() };
    const first = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ schema: JSON.stringify(loadSchema('QuotaDebited')) }) });
    expect(first.status).toBe(200);
    const rule = () => fetch(`${defaults.schemaRegistryUrl}/config/${encodeURIComponent(subject)}`, { headers }).then((r) => r.json());
    expect(await rule()).toEqual({ compatibilityLevel: 'NONE' });

    // When provisioning registers it
    const id = await codec.register('QuotaDebited');

    // Then it keeps the version's id and the subject's rule is the platform's
    expect(id).toBe(((await first.json()) as { id: number }).id);
    expect(await rule()).toEqual({ compatibilityLevel: 'BACKWARD' });
  });
});
