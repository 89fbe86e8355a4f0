import { defaults } from '@app/config';
import { EventCodec } from '@app/kafka';
import { FaultyProxy, ProxyMode } from '../support/faulty-proxy';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { waitFor } from '../support/wait-for';

describe('a consumer whose schema registry answers 503 or not at all', () => {
  const world = new MessagingWorld();
  let proxy: FaultyProxy;

  beforeAll(async () => {
    await world.setup();
    proxy = await new FaultyProxy(defaults.schemaRegistryUrl).start();
    world.onTeardown(() => proxy.stop());
  });
  afterAll(() => world.teardown());

  it.each<[string, ProxyMode]>([
    ['answers 503', 'fail-503'],
    ['never answers', 'hang'],
  ])('waits while the registry %s, dead-letters nothing, and handles the event once it answers again', async (_, mode) => {
    // Given an event on its topic, and a consumer whose codec has not seen its schema and reaches
    // the registry through a proxy that fails
    const event = taskRequested(undefined, mode);
    await world.publish([event]);
    proxy.mode = mode;
    const codec = new EventCodec(proxy.url, world.env.topicPrefix, { decodeDeadlineMs: 1000, requestTimeoutMs: 500 });
    const runner = await world.consumer(
      { TaskRequested: async (e, { trx }) => void (await trx('effects').insert({ event_id: e.eventId, note: mode })) },
      { name: `registry-${mode}`, codec },
    );

    // Then it meets the failing registry several times, and neither handles nor dead-letters the event
    await waitFor(() => runner.stats.outages >= 3 && proxy.refused >= 3, { what: 'three deliveries to meet the failing registry' });
    expect(runner.stats.deadLettered).toBe(0);
    expect(await world.db('effects').where({ event_id: event.eventId, note: mode })).toHaveLength(0);

    // When the registry answers again
    proxy.mode = 'pass';

    // Then the event is handled, once, and nothing was dead-lettered
    await waitFor(async () => (await world.db('effects').where({ event_id: event.eventId, note: mode })).length === 1, { what: 'the event handled' });
    expect(runner.stats.deadLettered).toBe(0);
    expect(await world.messageCount(runner.deadLetterTopic)).toBe(0);
  });
});
