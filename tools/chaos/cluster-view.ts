import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { logLevel } from 'kafkajs';
import { eventTypes, topicFor } from '@app/events';
import { createKafka, localKafkaCredentials } from '@app/kafka';
import { kafkaLibs } from '../stack/artifacts';
import { portIsOpen } from '../stack/processes';
import { KafkaNode, StackConfig } from '../stack/stack.config';

/** A partition as one broker describes it. */
export interface PartitionView {
  topic: string;
  partition: number;
  leader: number;
  replicas: number[];
  isr: number[];
}

/**
 * What the Admin API of one node says of the event topics' partitions. A fresh client bootstrapped
 * on that node alone asks it and no other: a broker cut off from its peers still answers with what it
 * last knew, so the campaign asks a node on the majority's side.
 */
export async function partitionsSeenBy(stack: StackConfig, node: KafkaNode): Promise<PartitionView[]> {
  const admin = localKafkaCredentials('admin', stack.stackDir)!;
  const kafka = createKafka('chaos-observer', [`${node.host}:${node.port}`], {
    sasl: { mechanism: 'scram-sha-512', ...admin },
    ssl: undefined,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2000,
    requestTimeout: 4000,
    retry: { retries: 0 },
  });
  const client = kafka.admin();
  try {
    await client.connect();
    const { topics } = await client.fetchTopicMetadata({ topics: eventTypes.map((type) => topicFor(type)) });
    return topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr })));
  } finally {
    await client.disconnect().catch(() => undefined);
  }
}

/** The high watermark of each partition of one topic, through one node. */
export async function busiestPartition(stack: StackConfig, node: KafkaNode, topic: string): Promise<number> {
  const admin = localKafkaCredentials('admin', stack.stackDir)!;
  const kafka = createKafka('chaos-observer', [`${node.host}:${node.port}`], {
    sasl: { mechanism: 'scram-sha-512', ...admin },
    ssl: undefined,
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
  });
  const client = kafka.admin();
  try {
    await client.connect();
    const offsets = await client.fetchTopicOffsets(topic);
    return offsets.reduce((best, p) => (Number(p.high) > Number(best.high) ? p : best)).partition;
  } finally {
    await client.disconnect().catch(() => undefined);
  }
}

/**
 * The active controller (the metadata quorum's leader) as one node's Admin API reports it through
 * DescribeQuorum, which kafkajs does not speak: a few lines of Java run from source against Kafka's
 * own client library.
 */
export async function quorumLeaderSeenBy(stack: StackConfig, node: KafkaNode): Promise<number> {
  const password = localKafkaCredentials('admin', stack.stackDir)!.password;
  const { stdout } = await promisify(execFile)(
    'java',
    ['-cp', `${kafkaLibs(stack)}/*`, '-Dlog4j2.configurationFile=/dev/null', path.join(__dirname, 'java', 'QuorumLeader.java'), `${node.host}:${node.port}`],
    { env: { ...process.env, KAFKA_ADMIN_PASSWORD: password }, timeout: 30_000 },
  );
  const answer = stdout
    .split('\n')
    .map((line) => line.trim().match(/^(-?\d+) (\d+)$/))
    .find(Boolean);
  if (!answer) throw new Error(`DescribeQuorum through node ${node.id} printed no leader`);
  return Number(answer[1]);
}

/** True when nothing accepts a connection on the node's client port. */
export async function refusesConnections(node: KafkaNode): Promise<boolean> {
  return !(await portIsOpen(node.host, node.port, 1000));
}
