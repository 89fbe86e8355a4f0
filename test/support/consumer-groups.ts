import type { Kafka } from 'kafkajs';

/** How many consumer groups the broker has whose names start with `prefix`. */
export async function consumerGroupsStartingWith(kafka: Kafka, prefix: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.listGroups()).groups.filter((g) => g.groupId.startsWith(prefix)).length;
  } finally {
    await admin.disconnect();
  }
}
