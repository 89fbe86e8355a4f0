import { localAuthFiles } from '@app/auth';
import type { KafkaPrincipal, PartnerPrincipal } from '@app/catalogue';
import { localPassword, passwordFromFile } from './secret-files';

/**
 * The schema registry knows the same principals as the brokers, each with a Basic credential of its
 * own (what `@kafkajs/confluent-schema-registry` and Confluent-style clients send as
 * `basic.auth.user.info`). `admin` alone may register schemas and change compatibility: that is
 * provisioning's job; every other principal reads.
 */
// A type, not an interface: the registry client's own Auth type wants an index signature.
export type RegistryCredentials = { username: string; password: string };

/**
 * The registry credential a process presents: SCHEMA_REGISTRY_USERNAME with SCHEMA_REGISTRY_PASSWORD
 * (or SCHEMA_REGISTRY_PASSWORD_FILE, as secrets are mounted); none when no username is set.
 */
export function registryAuthFromEnv(env: NodeJS.ProcessEnv = process.env): RegistryCredentials | undefined {
  if (!env.SCHEMA_REGISTRY_USERNAME) return undefined;
  const password = env.SCHEMA_REGISTRY_PASSWORD || passwordFromFile(env.SCHEMA_REGISTRY_PASSWORD_FILE, 'SCHEMA_REGISTRY_PASSWORD_FILE');
  if (!password) throw new Error('SCHEMA_REGISTRY_USERNAME needs SCHEMA_REGISTRY_PASSWORD (or SCHEMA_REGISTRY_PASSWORD_FILE)');
  return { username: env.SCHEMA_REGISTRY_USERNAME, password };
}

/** The Authorization header a credential makes (none without one), for clients that are not the registry client. */
export function basicAuthorization(credentials: RegistryCredentials | undefined): Record<string, string> {
  return credentials ? { authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` } : {};
}

/** The local stack's registry credential for a principal, as `npm run stack:up` made it; undefined without one. */
export function localRegistryCredentials(principal: KafkaPrincipal | PartnerPrincipal, stackDir?: string): RegistryCredentials | undefined {
  return localPassword(localAuthFiles(stackDir).registryCredentials, principal);
}

/** The environment a client of the local stack needs to use the registry as `principal`. */
export function localRegistryEnv(principal: KafkaPrincipal | PartnerPrincipal, stackDir?: string): Record<string, string> {
  const credentials = localRegistryCredentials(principal, stackDir);
  return credentials ? { SCHEMA_REGISTRY_USERNAME: credentials.username, SCHEMA_REGISTRY_PASSWORD: credentials.password } : {};
}
