import { letGo } from '@app/failures';
import { Logger } from '@nestjs/common';
import { Kafka, KafkaConfig, logCreator, logLevel } from 'kafkajs';
import { dropKafkajsNegativeTimerWarning } from './kafkajs-timer-warning';
import { kafkaSecurityFromEnv } from './security/kafka-security';

const logger = new Logger('kafkajs');
dropKafkajsNegativeTimerWarning();

/**
 * kafkajs logs through Nest's logger. Error responses that kafkajs retries by itself (a coordinator
 * still loading, a leader moving) are debug noise, not errors; so is its v2 partitioner notice.
 */
const kafkaLogCreator: logCreator =
  () =>
  ({ namespace, level, log }) => {
    const { message, timestamp: _timestamp, logger: _name, ...extra } = log;
    if (message.includes('switched default partitioner')) return;
    const line = `${namespace ? `${namespace}: ` : ''}${message} ${JSON.stringify(extra)}`;
    if (namespace === 'Connection' && message.startsWith('Response')) return logger.debug(line);
    if (level === logLevel.ERROR) return logger.error(line);
    if (level === logLevel.WARN) return logger.warn(line);
    if (level === logLevel.INFO) return logger.log(line);
    return logger.debug(line);
  };

/**
 * How long a consumer's fetch waits for messages (kafkajs: 5 s). A fetch returns as soon as one is
 * there; what the wait costs is a stop, which waits for the fetch in flight (each service stop took
 * ~5 s with the default).
 */
export const fetchWaitMs = 1000;

/** A client of the brokers, authenticated as the environment says (see kafkaSecurityFromEnv) unless `overrides` say otherwise. */
export function createKafka(clientId: string, brokers: string[], overrides: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({ clientId, brokers, logLevel: logLevel.WARN, logCreator: kafkaLogCreator, ...kafkaSecurityFromEnv(), ...overrides });
}

/**
 * True when a broker answers metadata, a controller is known and the cluster counts `minBrokers`
 * (and, when given, the broker `withNode`). A fresh client with no retries, so that a stopped broker
 * is reported within the timeout instead of after kafkajs's backoff.
 */
export async function kafkaAnswers(
  brokers: string[],
  timeoutMs = 2000,
  security: Partial<KafkaConfig> = {},
  minBrokers = 1,
  withNode?: number,
): Promise<boolean> {
  const kafka = createKafka('probe', brokers, {
    ...security,
    logLevel: logLevel.NOTHING,
    connectionTimeout: Math.min(1000, timeoutMs),
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    const listed = withNode === undefined || cluster.brokers.some((b) => b.nodeId === withNode);
    return cluster.brokers.length >= minBrokers && listed && cluster.controller !== null;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(letGo('the readiness client is closed whatever the broker answers', logger));
  }
}
