import { Kafka, KafkaConfig, logLevel } from 'kafkajs';

export function createKafka(clientId: string, brokers: string[], overrides: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({ clientId, brokers, logLevel: logLevel.WARN, ...overrides });
}

/**
 * True when a broker answers metadata and a controller is known. A fresh client with no retries,
 * so that a stopped broker is reported within the timeout instead of after kafkajs's backoff.
 */
export async function kafkaAnswers(brokers: string[], timeoutMs = 2000): Promise<boolean> {
  const kafka = createKafka('probe', brokers, {
    logLevel: logLevel.NOTHING,
    connectionTimeout: Math.min(1000, timeoutMs),
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0 && cluster.controller !== null;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
