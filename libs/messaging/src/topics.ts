import { Kafka } from 'kafkajs';

export interface TopicSpec {
  topic: string;
  partitions?: number;
}

/**
 * Creates the topics that are missing, waits until every partition has a leader, and leaves
 * existing topics as they are. Event topics keep everything (retention.ms=-1) so that they can be
 * replayed for audits.
 */
export async function ensureTopics(kafka: Kafka, topics: TopicSpec[], defaultPartitions = 3, timeoutMs = 30_000): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.topic));
    if (missing.length > 0) {
      // Not kafkajs' waitForLeaders: under KRaft its first metadata request can race the new
      // topic and fail with UNKNOWN_TOPIC_OR_PARTITION instead of retrying.
      await admin.createTopics({
        waitForLeaders: false,
        topics: missing.map((t) => ({
          topic: t.topic,
          numPartitions: t.partitions ?? defaultPartitions,
          configEntries: [{ name: 'retention.ms', value: '-1' }],
        })),
      });
    }
    await waitForLeaders(admin, topics.map((t) => t.topic), timeoutMs);
  } finally {
    await admin.disconnect();
  }
}

async function waitForLeaders(admin: ReturnType<Kafka['admin']>, topics: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
      if (metadata.length === topics.length && metadata.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`topics have no leader after ${timeoutMs} ms: ${topics.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
