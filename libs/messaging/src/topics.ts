import { Kafka } from 'kafkajs';

export interface TopicSpec {
  topic: string;
  partitions?: number;
}

/**
 * Creates the topics that are missing; existing ones are left as they are. Event topics keep
 * everything (retention.ms=-1) so that they can be replayed for audits.
 */
export async function ensureTopics(kafka: Kafka, topics: TopicSpec[], defaultPartitions = 3): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.topic));
    if (missing.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((t) => ({
        topic: t.topic,
        numPartitions: t.partitions ?? defaultPartitions,
        configEntries: [{ name: 'retention.ms', value: '-1' }],
      })),
    });
  } finally {
    await admin.disconnect();
  }
}
