import { defaults, ServiceName } from '@app/config';
import { provisionTopicsAndAcls, registerSchemas } from '@app/kafka-admin';
import { dropDatabase } from '@app/database';
import { createKafka, EventCodec, localKafkaEnv, localRegistryCredentials, localRegistryEnv } from '@app/kafka';
import { uniqueSuffix } from './unique';

/**
 * An isolated world for one test file on the shared stack: its own topic prefix and one database
 * per service, dropped afterwards.
 */
export class TestEnv {
  readonly suffix = uniqueSuffix();
  readonly topicPrefix = `t${this.suffix}.`;
  readonly serverUrl = process.env.DATABASE_URL || defaults.databaseUrl;

  databaseUrl(service: ServiceName): string {
    const url = new URL(this.serverUrl);
    url.pathname = `/test_${this.suffix}_${service}`;
    return url.toString();
  }

  /** Environment for a service process started in this world: its prefix, its database, its own Kafka and registry principal. */
  serviceEnv(service: ServiceName): NodeJS.ProcessEnv {
    return {
      TOPIC_PREFIX: this.topicPrefix,
      [`${service.toUpperCase()}_DATABASE_URL`]: this.databaseUrl(service),
      ...localKafkaEnv(service),
      ...localRegistryEnv(service),
    };
  }

  /** This world's topics, every principal's ACLs on them and every event's schema, made as admin (as stack:up does for no prefix). */
  async provision(requestRetentionMs?: number): Promise<void> {
    const kafka = createKafka('test-provisioning', [defaults.kafkaBrokers], { sasl: undefined, ...adminSasl() });
    await provisionTopicsAndAcls(kafka, this.topicPrefix, undefined, requestRetentionMs);
    await registerSchemas(new EventCodec(defaults.schemaRegistryUrl, this.topicPrefix, { auth: localRegistryCredentials('admin') }));
  }

  async dropDatabases(services: readonly ServiceName[]): Promise<void> {
    for (const service of services) await dropDatabase(this.databaseUrl(service));
  }
}

/** The admin's credentials on the local stack, whatever principal the test process runs as. */
function adminSasl() {
  const env = localKafkaEnv('admin');
  return env.KAFKA_USERNAME ? { sasl: { mechanism: 'scram-sha-512' as const, username: env.KAFKA_USERNAME, password: env.KAFKA_PASSWORD } } : {};
}
