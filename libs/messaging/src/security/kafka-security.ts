import * as fs from 'node:fs';
import type { KafkaConfig, SASLOptions } from 'kafkajs';

const mechanisms = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

/**
 * How a client authenticates to the brokers, from KAFKA_SASL_MECHANISM, KAFKA_USERNAME,
 * KAFKA_PASSWORD, KAFKA_SSL (on) and KAFKA_SSL_CA (a PEM file to trust). Nothing set: plaintext,
 * no credentials.
 */
export function kafkaSecurityFromEnv(env: NodeJS.ProcessEnv = process.env): Pick<KafkaConfig, 'sasl' | 'ssl'> {
  const security: Pick<KafkaConfig, 'sasl' | 'ssl'> = {};
  const mechanism = (env.KAFKA_SASL_MECHANISM || (env.KAFKA_USERNAME ? 'scram-sha-512' : '')).toLowerCase();
  if (mechanism) {
    if (!(mechanisms as readonly string[]).includes(mechanism)) throw new Error(`KAFKA_SASL_MECHANISM must be one of ${mechanisms.join(', ')}, got "${mechanism}"`);
    if (!env.KAFKA_USERNAME || !env.KAFKA_PASSWORD) throw new Error('KAFKA_SASL_MECHANISM needs KAFKA_USERNAME and KAFKA_PASSWORD');
    security.sasl = { mechanism, username: env.KAFKA_USERNAME, password: env.KAFKA_PASSWORD } as SASLOptions;
  }
  if (env.KAFKA_SSL === 'on' || env.KAFKA_SSL_CA) {
    security.ssl = env.KAFKA_SSL_CA ? { ca: [fs.readFileSync(env.KAFKA_SSL_CA, 'utf8')] } : true;
  }
  return security;
}
