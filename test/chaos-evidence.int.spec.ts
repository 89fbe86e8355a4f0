import { defaults } from '@app/config';
import { EventCodec } from '@app/kafka';
import { decodeOrNull } from '../tools/chaos/evidence';
import { FaultyProxy } from './support/faulty-proxy';
import { taskRequested } from './support/messaging-world';
import { TestEnv } from './support/test-env';
import { setTimeout as sleep } from 'node:timers/promises';

describe("the campaign checker's decoding", () => {
  const env = new TestEnv();
  let proxy: FaultyProxy;

  beforeAll(async () => {
    proxy = await new FaultyProxy(defaults.schemaRegistryUrl).start();
  });
  afterAll(() => proxy.stop());

  it('waits for a registry answering 503 (still recovering from the faults) instead of calling the event undecodable', async () => {
    // Given an event encoded with its schema, and a checker whose registry answers 503
    const event = taskRequested(undefined, 'checker');
    const writer = new EventCodec(defaults.schemaRegistryUrl, env.topicPrefix);
    await writer.register('TaskRequested'); // provisioning's part: the test process is admin
    const value = await writer.encode(event);
    proxy.mode = 'fail-503';
    const checker = new EventCodec(proxy.url, env.topicPrefix, { decodeDeadlineMs: 1000, requestTimeoutMs: 500 });

    // When it decodes while the registry recovers after two seconds
    const decoding = decodeOrNull(checker, value, 'TaskRequested');
    await sleep(2000);
    expect(proxy.refused).toBeGreaterThanOrEqual(2);
    proxy.mode = 'pass';

    // Then it gets the event, not null
    expect(await decoding).toEqual(event);
  });

  it('calls bytes that are not an event of ours undecodable at once', async () => {
    const checker = new EventCodec(defaults.schemaRegistryUrl, env.topicPrefix);
    expect(await decodeOrNull(checker, Buffer.from('not avro at all'), 'TaskRequested')).toBeNull();
  });
});
