import type { Kafka } from 'kafkajs';

/** Deletes a test's topics (everything behind its prefix), so the shared broker does not pile them up. */
export async function deleteTopicsWithPrefix(kafka: Kafka, prefix: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length) await admin.deleteTopics({ topics });
  } catch {
    // best effort: a leftover topic costs disk, not correctness
  } finally {
    await admin.disconnect();
  }
}
