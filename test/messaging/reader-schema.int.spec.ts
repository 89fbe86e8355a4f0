import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { defaults } from '@app/config';
import { DomainEvent, loadSchema, subjectFor } from '@app/events';
import { registryAuthFromEnv } from '@app/kafka';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { waitFor } from '../support/wait-for';

describe('events written with an older version of their schema', () => {
  const world = new MessagingWorld();
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  it('reach the handler with the default of a field the older version lacked', async () => {
    // Given the previous version of TaskRequested, before idempotencyKey (default null) was added,
    // registered under its subject (as admin) after the current one, and an event written with it
    const current = loadSchema('TaskRequested');
    const previous = { ...current, fields: current.fields.filter((f) => f.name !== 'idempotencyKey') };
    const registry = new SchemaRegistry({ host: defaults.schemaRegistryUrl, auth: registryAuthFromEnv() });
    const topic = world.codec.topicFor('TaskRequested');
    const { id: previousId } = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(previous) }, { subject: subjectFor(topic) });
    const { idempotencyKey: _absent, ...written } = taskRequested(undefined, 'old writer') as DomainEvent & { idempotencyKey: unknown };
    const producer = world.kafka.producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ key: written.taskId, value: await registry.encode(previousId, written) }] });
    await producer.disconnect();

    // When a consumer reads it with the current schema
    const received: DomainEvent[] = [];
    await world.consumer({ TaskRequested: async (event) => void received.push(event) }, { name: 'reader-schema' });

    // Then the handler sees the field, with its default, and everything else as written
    const [event] = await waitFor(() => received.length === 1 && received, { what: 'the old event handled' });
    expect(event).toHaveProperty('idempotencyKey', null);
    expect(event).toEqual({ ...written, idempotencyKey: null });
    // And the current version, registered beside it, has another id
    expect(await world.codec.schemaId('TaskRequested')).not.toBe(previousId);
  });
});
