import { defaults } from '@app/config';
import { EventCodec } from '@app/kafka';
import { startRegistry, stopRegistry } from '../../tools/stack/registry';
import { loadStackConfig } from '../../tools/stack/stack.config';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { waitFor } from '../support/wait-for';

describe('a consumer while the schema registry is down', () => {
  const stack = loadStackConfig();
  let world: MessagingWorld;

  beforeAll(async () => {
    world = await new MessagingWorld().setup();
  });
  afterAll(async () => {
    await startRegistry(stack); // leave it running whatever happened
    await world.teardown();
  });

  it('dead-letters nothing, keeps the message, and processes it once the registry is back', async () => {
    // Given an event on its topic, and a consumer whose codec has never seen its schema
    const event = taskRequested();
    const producer = world.kafka.producer();
    await producer.connect();
    await producer.send({ topic: world.codec.topicFor('TaskRequested'), acks: -1, messages: [{ key: event.taskId, value: await world.codec.encode(event) }] });
    await producer.disconnect();

    // When the registry is really stopped and the consumer starts
    expect(await stopRegistry(stack)).toBe(true);
    const runner = await world.consumer(
      { TaskRequested: async (e, { trx }) => void (await trx('effects').insert({ event_id: e.eventId, note: 'after outage' })) },
      { name: 'outage', codec: new EventCodec(defaults.schemaRegistryUrl, world.env.topicPrefix) },
    );

    // Then it fails to decode for want of the registry, and dead-letters nothing
    await waitFor(() => runner.stats.outages > 0, { what: 'a delivery to meet the outage' });
    expect(runner.stats.deadLettered).toBe(0);

    // When the registry is started again
    await startRegistry(stack);

    // Then the event is processed, once
    await waitFor(() => runner.stats.processed === 1, { what: 'the event after the outage', timeoutMs: 120_000 });
    expect(runner.stats.deadLettered).toBe(0);
    expect(await world.db('effects').where({ event_id: event.eventId })).toHaveLength(1);
  });
});
