import { ConfigError } from './config-error';
import { EnvReader } from './env-reader';

export { ConfigError } from './config-error';
export const serviceNames = ['tasks', 'quota', 'generation', 'notification'] as const;
export type ServiceName = (typeof serviceNames)[number];

/** What every service needs to reach its database, Kafka and the schema registry. */
export interface ServiceConfig {
  service: ServiceName;
  host: string;
  port: number;
  databaseUrl: string;
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  topicPrefix: string;
  /** The service pool's connect, statement and idle-in-transaction timeouts (a migration has longer ones). */
  databaseTimeouts: { connectMs: number; statementMs: number; idleInTransactionMs: number };
}

const defaultPorts: Record<ServiceName, number> = { tasks: 3000, quota: 3001, generation: 3002, notification: 3003 };

export const defaults = {
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
  kafkaBrokers: '127.0.0.1:19092',
  schemaRegistryUrl: 'http://127.0.0.1:18081/apis/ccompat/v7',
};

/**
 * Reads and validates the environment once, at boot, and fails with every problem listed.
 * DATABASE_URL names the PostgreSQL server; each service owns the database taskplatform_<service>
 * on it, unless <SERVICE>_DATABASE_URL points it elsewhere.
 */
export function loadServiceConfig(service: ServiceName, env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const problems: string[] = [];
  const upper = service.toUpperCase();

  const port = parsePort(`${upper}_PORT`, env[`${upper}_PORT`], defaultPorts[service], problems);
  const databaseUrl = env[`${upper}_DATABASE_URL`] || withDatabase(env.DATABASE_URL || defaults.databaseUrl, `taskplatform_${service}`, problems);
  const kafkaBrokers = (env.KAFKA_BROKERS || defaults.kafkaBrokers)
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (kafkaBrokers.length === 0 || kafkaBrokers.some((b) => !/^[^:\s]+:\d+$/.test(b))) {
    problems.push(`KAFKA_BROKERS must be a comma-separated list of host:port, got "${env.KAFKA_BROKERS}"`);
  }
  const schemaRegistryUrl = env.SCHEMA_REGISTRY_URL || defaults.schemaRegistryUrl;
  if (!isHttpUrl(schemaRegistryUrl)) problems.push(`SCHEMA_REGISTRY_URL must be an http(s) URL, got "${schemaRegistryUrl}"`);
  const topicPrefix = env.TOPIC_PREFIX ?? '';
  if (!/^[a-zA-Z0-9._-]*$/.test(topicPrefix)) problems.push(`TOPIC_PREFIX may hold only letters, digits, ".", "_" and "-", got "${topicPrefix}"`);

  const host = env.HOST || '127.0.0.1';
  const read = new EnvReader(env, service);
  const databaseTimeouts = {
    connectMs: read.duration('DB_CONNECT_TIMEOUT', '5s'),
    statementMs: read.duration('DB_STATEMENT_TIMEOUT', '30s'),
    idleInTransactionMs: read.duration('DB_IDLE_IN_TRANSACTION_TIMEOUT', '60s'),
  };
  problems.push(...read.problems);

  if (problems.length) throw new ConfigError(service, problems);
  return { service, host, port, databaseUrl, kafkaBrokers, schemaRegistryUrl, topicPrefix, databaseTimeouts };
}

function parsePort(name: string, raw: string | undefined, fallback: number, problems: string[]): number {
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`${name} must be a port number, got "${raw}"`);
  return port;
}

function withDatabase(serverUrl: string, database: string, problems: string[]): string {
  try {
    const url = new URL(serverUrl);
    if (!url.protocol.startsWith('postgres')) throw new Error('not postgres');
    url.pathname = `/${database}`;
    return url.toString();
  } catch {
    problems.push(`DATABASE_URL must be a postgres:// URL, got "${serverUrl}"`);
    return '';
  }
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Nest injection token for the validated ServiceConfig. */
export const SERVICE_CONFIG = Symbol('SERVICE_CONFIG');
