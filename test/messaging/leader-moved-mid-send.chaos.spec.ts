import * as fs from 'node:fs';
import { readToEnd } from '@app/kafka-admin';
import * as os from 'node:os';
import * as path from 'node:path';
import { Kafka, logLevel, Producer, RecordMetadata } from 'kafkajs';
import { createKafka, IdempotentProducer, localKafkaCredentials, UnansweredPartitions } from '@app/kafka';
import { kafkaProcess, startKafka, stopKafka } from '../../tools/stack/kafka';
import { runningPid } from '../../tools/stack/processes';
import { kafkaBootstrap, kafkaNodes, loadStackConfig, StackConfig } from '../../tools/stack/stack.config';
import { waitFor } from '../support/wait-for';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * kafkajs keeps each broker's answer across the retries of one send, and after a leader moved it
 * sends only to brokers that have not answered: a partition whose leadership moved to a broker that
 * had already answered for another partition is never sent, and the send resolves. This makes it
 * happen on a three-node cluster of its own: partition 0 led by node 1, partition 1 by node 2;
 * partition 1 is reassigned to nodes 1 and 3 (its leadership moves to node 1, and node 2 answers
 * NOT_LEADER) while the producers still believe node 2 leads; then one batch for both partitions.
 */
describe('a send while a partition’s leader moves to a broker that already answered', () => {
  const shared = loadStackConfig();
  const stackDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leader-moved-'));
  const config: StackConfig = loadStackConfig({
    ...process.env,
    STACK_DIR: stackDir,
    STACK_BROKERS: '3',
    KAFKA_PORT: '39092',
    KAFKA_CONTROLLER_PORT: '39093',
    KAFKA_TLS_PORT: '39094',
  });
  const adminSasl = () => ({ mechanism: 'scram-sha-512' as const, ...localKafkaCredentials('admin', stackDir)! });
  const topic = 'leader-moved';
  let kafka: Kafka;
  let raw: Producer;
  let ours: IdempotentProducer;

  beforeAll(async () => {
    // The shared stack's Kafka jars (the test suite's global setup fetched them)
    fs.mkdirSync(stackDir, { recursive: true });
    fs.symlinkSync(path.join(shared.stackDir, 'dist'), path.join(stackDir, 'dist'));
    await startKafka(config);
    kafka = createKafka('leader-moved', kafkaBootstrap(config), { sasl: adminSasl(), ssl: undefined, logLevel: logLevel.NOTHING });
    const client = kafka.admin();
    await client.connect();
    await client.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic,
          replicaAssignment: [
            { partition: 0, replicas: [1, 2, 3] },
            { partition: 1, replicas: [2, 1, 3] },
          ],
        },
      ],
    });
    await client.disconnect();
    raw = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    ours = new IdempotentProducer(kafka);
    await raw.connect();
    await ours.connect();
  }, 240_000);

  afterAll(async () => {
    await raw?.disconnect().catch(() => undefined);
    await ours?.disconnect().catch(() => undefined);
    await stopKafka(config);
    fs.rmSync(stackDir, { recursive: true, force: true });
  }, 120_000);

  it('resolves without writing the moved partition (kafkajs), and fails then writes everything (IdempotentProducer)', async () => {
    // Given both producers know the leaders: node 1 for partition 0, node 2 for partition 1
    const batch = (who: string, round: string) => ({
      acks: -1,
      topicMessages: [{ topic, messages: [0, 1].map((partition) => ({ partition, key: `${who}-${partition}`, value: `${who} ${round} to ${partition}` })) }],
    });
    await raw.sendBatch(batch('raw', 'warm-up'));
    await ours.sendBatch(batch('ours', 'warm-up'));

    // When partition 1 leaves node 2 for node 1 (the producers' metadata still says node 2)
    const client = kafka.admin();
    await client.connect();
    await client.alterPartitionReassignments({ topics: [{ topic, partitionAssignment: [{ partition: 1, replicas: [1, 3] }] }] });
    await waitFor(
      async () => {
        const fresh = createKafka('leader-moved-check', kafkaBootstrap(config), { sasl: adminSasl(), ssl: undefined, logLevel: logLevel.NOTHING }).admin();
        await fresh.connect();
        const [metadata] = (await fresh.fetchTopicMetadata({ topics: [topic] })).topics;
        await fresh.disconnect();
        return metadata.partitions.find((p) => p.partitionId === 1)?.leader === 1;
      },
      { what: 'partition 1 led by node 1', timeoutMs: 60_000 },
    );
    await client.disconnect();

    // Then kafkajs's send resolves, yet partition 1's message is not written
    const rawAnswers = await raw.sendBatch(batch('raw', 'moved'));
    expect(rawAnswers.map((a) => a.partition)).toEqual([0]);
    // And the platform's producer refuses to call the same send a success
    await expect(ours.sendBatch(batch('ours', 'moved'))).rejects.toThrow(UnansweredPartitions);
    // And sent again (as the relay does), everything is written
    const answers = await ours.sendBatch(batch('ours', 'moved'));
    expect(answers.map((a) => a.partition).sort()).toEqual([0, 1]);

    const written: string[] = [];
    await readToEnd(kafka, [topic], ({ partition, message }) => void written.push(`${partition}: ${message.value?.toString()}`));
    expect(written).toContain('0: raw moved to 0');
    expect(written).not.toContain('1: raw moved to 1');
    expect(written).toContain('0: ours moved to 0');
    expect(written).toContain('1: ours moved to 1');
  }, 120_000);

  it('never acknowledges a send made while another one times out after being written (kafkajs does: for the other’s place)', async () => {
    // Given a partition led by node 1, and both producers knowing it
    const timedOut = 'timed-out-send';
    const client = kafka.admin();
    await client.connect();
    await client.createTopics({ waitForLeaders: true, topics: [{ topic: timedOut, replicaAssignment: [{ partition: 0, replicas: [1, 2, 3] }] }] });
    await client.disconnect();
    const rawProducer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await rawProducer.connect();
    const record = (value: string) => ({ topic: timedOut, acks: -1, timeout: 1000, messages: [{ partition: 0, key: value, value }] });
    await rawProducer.send(record('raw warm-up'));
    await ours.send(record('ours warm-up'));

    // When the followers stop answering (node 1 writes, but cannot have the copies acks=all waits for)
    // and two sends are made at once, the first timing out after the leader wrote it
    const nodes = kafkaNodes(config).slice(1);
    const signalFollowers = (signal: NodeJS.Signals) => nodes.forEach((node) => process.kill(-runningPid(kafkaProcess(config, node))!, signal));
    const sendBoth = (producer: { send: (r: ReturnType<typeof record>) => Promise<RecordMetadata[]> }, who: string) => {
      const first = producer.send(record(`${who} first`)).then(placeOf, () => 'failed');
      const second = producer.send(record(`${who} second`)).then(placeOf, () => 'failed');
      return Promise.all([first, second]);
    };
    signalFollowers('SIGSTOP');
    const rawSends = sendBoth(rawProducer, 'raw');
    const ourSends = sendBoth(ours, 'ours');
    // Back before the second send's own wait times out: it is then answered as a duplicate of the first.
    await sleep(1500);
    signalFollowers('SIGCONT');
    const [[rawFirst, rawSecond], [ourFirst, ourSecond]] = await Promise.all([rawSends, ourSends]);
    await rawProducer.disconnect();

    const at = new Map<string, string>();
    await readToEnd(kafka, [timedOut], ({ message }) => void at.set(message.offset, message.value!.toString()));
    const misplaced = (sends: Array<[string, string]>) => sends.filter(([place, value]) => place !== 'failed' && at.get(place) !== value);
    // Then kafkajs acknowledged a send at a place that holds another one (the other written twice)
    expect(
      misplaced([
        [rawFirst, 'raw first'],
        [rawSecond, 'raw second'],
      ]),
    ).not.toEqual([]);
    // And every send the platform's producer acknowledged is where it was told, and both were
    expect(
      misplaced([
        [ourFirst, 'ours first'],
        [ourSecond, 'ours second'],
      ]),
    ).toEqual([]);
    expect([...at.values()]).toEqual(expect.arrayContaining(['ours first', 'ours second']));
  }, 120_000);
});

const placeOf = ([answer]: RecordMetadata[]) => answer.baseOffset!;
