import type { Kafka } from 'kafkajs';
import { defaults } from '@app/config';
import { subjectFor } from '@app/events';

/**
 * Removes what a test left on the shared stack behind its prefix: its topics, and the schema subject
 * of each (the registry keeps its data in PostgreSQL, which outlives the run). Best effort: a
 * leftover costs disk, not correctness.
 */
export async function removeTestData(kafka: Kafka, prefix: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  let topics: string[] = [];
  try {
    topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length) await admin.deleteTopics({ topics });
  } catch {
    // best effort
  } finally {
    await admin.disconnect();
  }
  for (const topic of topics) {
    if (!(await deleteSubject(subjectFor(topic)))) return; // the registry does not answer: leave the rest
  }
}

/**
 * A subject is soft-deleted first; only then does the registry delete it for good. False when the
 * registry did not answer (a subject that does not exist is an answer).
 */
export async function deleteSubject(subject: string, registryUrl = process.env.SCHEMA_REGISTRY_URL || defaults.schemaRegistryUrl): Promise<boolean> {
  for (const query of ['', '?permanent=true']) {
    const url = `${registryUrl}/subjects/${encodeURIComponent(subject)}${query}`;
    const answered = await fetch(url, { method: 'DELETE', signal: AbortSignal.timeout(5000) }).then(
      () => true,
      () => false,
    );
    if (!answered) return false;
  }
  return true;
}
