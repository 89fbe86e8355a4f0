import type { Kafka } from 'kafkajs';

/**
 * Deletes a test's topics (everything behind its prefix), so the shared broker does not pile them up.
 * Best effort: a leftover topic costs disk, not correctness. Schema subjects are left in place:
 * deleting them (soft, then permanent) made the registry stop answering for a minute or more.
 */
export async function removeTestData(kafka: Kafka, prefix: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length) await admin.deleteTopics({ topics });
  } catch {
    // best effort
  } finally {
    await admin.disconnect();
  }
}
