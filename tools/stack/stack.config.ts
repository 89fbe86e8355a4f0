import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where the local stack lives and listens. Every value can be overridden by the environment. */
export interface StackConfig {
  rootDir: string;
  stackDir: string;
  logsDir: string;
  runDir: string;
  kafka: { version: string; host: string; port: number; controllerPort: number; tlsPort: number; heap: string };
  registry: { version: string; host: string; port: number; managementPort: number; heap: string; database: string };
  databaseUrl: string;
  serviceDatabases: string[];
}

const rootDir = path.resolve(__dirname, '..', '..');
export const pomFile = path.join(__dirname, 'pom.xml');

/** The pom is the single place where component versions are pinned. */
function pinnedVersion(property: string): string {
  const match = fs.readFileSync(pomFile, 'utf8').match(new RegExp(`<${property}>([^<]+)</${property}>`));
  if (!match) throw new Error(`${pomFile} does not pin ${property}`);
  return match[1];
}

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0 || value > 65535) {
    throw new Error(`${name} must be a port number, got "${raw}"`);
  }
  return value;
}

export function loadStackConfig(): StackConfig {
  const stackDir = process.env.STACK_DIR ?? path.join(rootDir, '.stack');
  return {
    rootDir,
    stackDir,
    logsDir: path.join(stackDir, 'logs'),
    runDir: path.join(stackDir, 'run'),
    kafka: {
      version: pinnedVersion('kafka.version'),
      host: '127.0.0.1',
      port: intFromEnv('KAFKA_PORT', 19092),
      controllerPort: intFromEnv('KAFKA_CONTROLLER_PORT', 19093),
      tlsPort: intFromEnv('KAFKA_TLS_PORT', 19094),
      heap: process.env.KAFKA_HEAP ?? '512m',
    },
    registry: {
      version: pinnedVersion('apicurio.version'),
      host: '127.0.0.1',
      port: intFromEnv('REGISTRY_PORT', 18081),
      managementPort: intFromEnv('REGISTRY_MANAGEMENT_PORT', 18082),
      heap: process.env.REGISTRY_HEAP ?? '384m',
      database: process.env.REGISTRY_DATABASE ?? 'taskplatform_registry',
    },
    databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    serviceDatabases: ['tasks', 'quota', 'generation', 'notification'].map((s) => `taskplatform_${s}`),
  };
}

export function kafkaBrokers(config: StackConfig): string {
  return `${config.kafka.host}:${config.kafka.port}`;
}

export function registryUrl(config: StackConfig): string {
  return `http://${config.registry.host}:${config.registry.port}/apis/ccompat/v7`;
}
