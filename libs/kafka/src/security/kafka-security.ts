import * as fs from 'node:fs';
import type { KafkaConfig, SASLOptions } from 'kafkajs';
import { passwordFromFile } from './secret-files';

const mechanisms = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

/**
 * How a client authenticates to the brokers, from KAFKA_SASL_MECHANISM, KAFKA_USERNAME,
 * KAFKA_PASSWORD (or KAFKA_PASSWORD_FILE, a file holding it, as Docker and Kubernetes secrets are
 * mounted), KAFKA_SSL (on) and KAFKA_SSL_CA (a PEM file to trust). Nothing set: plaintext, no
 * credentials.
 */
export function kafkaSecurityFromEnv(env: NodeJS.ProcessEnv = process.env): Pick<KafkaConfig, 'sasl' | 'ssl'> {
  const security: Pick<KafkaConfig, 'sasl' | 'ssl'> = {};
  const mechanism = (env.KAFKA_SASL_MECHANISM || (env.KAFKA_USERNAME ? 'scram-sha-512' : '')).toLowerCase();
  if (mechanism) {
    if (!(mechanisms as readonly string[]).includes(mechanism))
      throw new Error(`KAFKA_SASL_MECHANISM must be one of ${mechanisms.join(', ')}, got "${mechanism}"`);
    const password = env.KAFKA_PASSWORD || passwordFromFile(env.KAFKA_PASSWORD_FILE, 'KAFKA_PASSWORD_FILE');
    if (!env.KAFKA_USERNAME || !password) throw new Error('KAFKA_SASL_MECHANISM needs KAFKA_USERNAME and KAFKA_PASSWORD (or KAFKA_PASSWORD_FILE)');
    security.sasl = { mechanism, username: env.KAFKA_USERNAME, password } as SASLOptions;
  }
  if (env.KAFKA_SSL === 'on' || env.KAFKA_SSL_CA) {
    security.ssl = env.KAFKA_SSL_CA ? { ca: [fs.readFileSync(env.KAFKA_SSL_CA, 'utf8')] } : true;
  }
  return security;
}
