import { localAuthFiles } from '@app/auth';
import type { KafkaPrincipal, PartnerPrincipal } from '@app/catalogue';
import { localPassword } from './secret-files';

export interface KafkaCredentials {
  username: string;
  password: string;
}

/** The local stack's password for a principal, as `npm run stack:up` made it; undefined without a local stack. */
export function localKafkaCredentials(principal: KafkaPrincipal | PartnerPrincipal, stackDir?: string): KafkaCredentials | undefined {
  return localPassword(localAuthFiles(stackDir).kafkaCredentials, principal);
}

/** The environment a client of the local stack needs to connect as `principal`. */
export function localKafkaEnv(principal: KafkaPrincipal | PartnerPrincipal, stackDir?: string): Record<string, string> {
  const credentials = localKafkaCredentials(principal, stackDir);
  if (!credentials) return {};
  return { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_USERNAME: credentials.username, KAFKA_PASSWORD: credentials.password };
}
