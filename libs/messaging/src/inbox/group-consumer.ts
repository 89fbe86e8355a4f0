import { letGo } from '@app/failures';
import type { Logger } from '@nestjs/common';
import type { Consumer, Kafka } from 'kafkajs';
import { countRequests, fetchWaitMs } from '@app/kafka';
import type { ConsumerOptions } from './consumer-options';

/** A consumer of `groupId`, counted: eager (a fetch answers at the first byte) unless `options.fetch` makes it lazy. */
export function groupConsumer(kafka: Kafka, groupId: string, options: Pick<ConsumerOptions, 'sessionTimeoutMs' | 'heartbeatIntervalMs' | 'fetch'>): Consumer {
  const sessionTimeout = options.sessionTimeoutMs ?? 10_000;
  const consumer = kafka.consumer({
    groupId,
    allowAutoTopicCreation: false,
    sessionTimeout,
    heartbeatInterval: Math.min(options.heartbeatIntervalMs ?? 500, Math.floor(sessionTimeout / 3)),
    minBytes: options.fetch?.minBytes ?? 1,
    maxWaitTimeInMs: options.fetch?.maxWaitMs ?? fetchWaitMs,
    // kafkajs takes up to 10 MB a fetch from each broker (1 MB a partition): after a backlog, three
    // brokers' answers were held at once in every consumer. A transaction merges 200 messages at
    // most, so a fetch of 1 MB (256 KB a partition, ~600 events) still keeps it fed; a larger
    // message still comes alone.
    maxBytes: 1024 * 1024,
    maxBytesPerPartition: 256 * 1024,
  });
  return countRequests(consumer);
}

/**
 * Gives `to`, a group new to some of `topics`, the offsets `from` committed on them, so that a
 * consumer moved to a group of its own (a service's bookkeeping, once read by its own group) goes on
 * where it was rather than reading each topic from the beginning. Partitions `to` already committed,
 * or `from` never did, are left. A group with members (another instance joined first) cannot be
 * given offsets and needs none: its members commit their own.
 */
export async function carryOffsetsOver(kafka: Kafka, from: string, to: string, topics: string[], logger: Logger): Promise<void> {
  const admin = countRequests(kafka.admin());
  await admin.connect();
  try {
    const theirs = await admin.fetchOffsets({ groupId: from, topics });
    const ours = await admin.fetchOffsets({ groupId: to, topics });
    for (const { topic, partitions } of theirs) {
      const committed = new Set((ours.find((o) => o.topic === topic)?.partitions ?? []).filter((p) => p.offset !== '-1').map((p) => p.partition));
      const carried = partitions.filter((p) => p.offset !== '-1' && !committed.has(p.partition));
      if (carried.length === 0) continue;
      await admin.setOffsets({ groupId: to, topic, partitions: carried });
      logger.log(`${to} starts ${topic} where ${from} left it (${carried.map((p) => `${p.partition}@${p.offset}`).join(', ')})`);
    }
  } catch (error) {
    logger.warn(`carrying ${from}'s offsets over to ${to} failed (${(error as Error).message}): it starts where its own commits or the topics begin`);
  } finally {
    await admin.disconnect().catch(letGo('the offsets client is closed whatever the broker answers', logger));
  }
}
