import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where the local stack lives and listens. Every value can be overridden by the environment. */
export interface StackConfig {
  rootDir: string;
  stackDir: string;
  logsDir: string;
  runDir: string;
  kafka: { version: string; host: string; port: number; controllerPort: number; tlsPort: number; heap: string; brokers: 1 | 3 };
  registry: { version: string; host: string; port: number; heap: string; database: string };
  zipkin: { version: string; host: string; port: number; heap: string };
  prometheus: { host: string; port: number };
  databaseUrl: string;
  /** One server (the default), or a primary and a synchronous standby under Patroni behind HAProxy (postgres-ha.ts). */
  postgres: 'single' | 'replicated';
  /**
   * How a replicated database acknowledges a commit: once the standby has it (the default), or at
   * once (STACK_POSTGRES_REPLICATION=asynchronous: what the campaign's evidence run measures).
   */
  postgresReplication: 'synchronous' | 'asynchronous';
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

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0 || value > 65535) {
    throw new Error(`${name} must be a port number, got "${raw}"`);
  }
  return value;
}

/** Where a started stack keeps how many brokers it runs, so that later commands (npm start, status) find them all. */
export function layoutFile(stackDir: string): string {
  return path.join(stackDir, 'run', 'kafka-brokers');
}

function startedLayout(stackDir: string): string | undefined {
  return fs.existsSync(layoutFile(stackDir)) ? fs.readFileSync(layoutFile(stackDir), 'utf8').trim() : undefined;
}

/** Where a started stack keeps its database's layout, for the same reason. */
export function postgresLayoutFile(stackDir: string): string {
  return path.join(stackDir, 'run', 'postgres-layout');
}

function postgresLayout(raw: string | undefined, stackDir: string): 'single' | 'replicated' {
  const chosen = raw || (fs.existsSync(postgresLayoutFile(stackDir)) ? fs.readFileSync(postgresLayoutFile(stackDir), 'utf8').trim() : 'single');
  if (chosen === 'single' || chosen === 'replicated') return chosen;
  throw new Error(`STACK_POSTGRES must be single or replicated, got "${chosen}"`);
}

/** One broker (the default: the test suite, the demo) or a replicated cluster of three. */
function brokerCount(raw: string | undefined): 1 | 3 {
  if (raw === undefined || raw === '' || raw === '1') return 1;
  if (raw === '3') return 3;
  throw new Error(`STACK_BROKERS must be 1 or 3, got "${raw}"`);
}

export function loadStackConfig(env: NodeJS.ProcessEnv = process.env): StackConfig {
  const stackDir = env.STACK_DIR ?? path.join(rootDir, '.stack');
  const postgres = postgresLayout(env.STACK_POSTGRES, stackDir);
  return {
    rootDir,
    stackDir,
    logsDir: path.join(stackDir, 'logs'),
    runDir: path.join(stackDir, 'run'),
    kafka: {
      version: pinnedVersion('kafka.version'),
      host: '127.0.0.1',
      port: intFromEnv(env, 'KAFKA_PORT', 19092),
      controllerPort: intFromEnv(env, 'KAFKA_CONTROLLER_PORT', 19093),
      tlsPort: intFromEnv(env, 'KAFKA_TLS_PORT', 19094),
      heap: env.KAFKA_HEAP ?? '512m',
      brokers: brokerCount(env.STACK_BROKERS || startedLayout(stackDir)),
    },
    registry: {
      version: pinnedVersion('apicurio.version'),
      host: '127.0.0.1',
      port: intFromEnv(env, 'REGISTRY_PORT', 18081),
      heap: env.REGISTRY_HEAP ?? '384m',
      database: env.REGISTRY_DATABASE ?? 'taskplatform_registry',
    },
    zipkin: {
      version: pinnedVersion('zipkin.version'),
      host: '127.0.0.1',
      port: intFromEnv(env, 'ZIPKIN_PORT', 19411),
      heap: env.ZIPKIN_HEAP ?? '256m',
    },
    prometheus: { host: '127.0.0.1', port: intFromEnv(env, 'PROMETHEUS_PORT', 19090) },
    // The replicated database is the stack's own, so it cannot share the machine's server's port.
    databaseUrl: env.DATABASE_URL ?? `postgres://postgres@127.0.0.1:${postgres === 'single' ? 5432 : 15432}/postgres`,
    postgres,
    postgresReplication: env.STACK_POSTGRES_REPLICATION === 'asynchronous' ? 'asynchronous' : 'synchronous',
    serviceDatabases: ['tasks', 'quota', 'generation', 'notification'].map((s) => `taskplatform_${s}`),
  };
}

/** Every broker's client address, as KAFKA_BROKERS takes them (comma-separated). */
export function kafkaBrokers(config: StackConfig): string {
  return kafkaBootstrap(config).join(',');
}

/** Every broker's client address, as kafkajs takes them. */
export function kafkaBootstrap(config: StackConfig): string[] {
  return kafkaNodes(config).map((node) => `${node.host}:${node.port}`);
}

/** A Kafka node of the stack: broker and controller at once. */
export interface KafkaNode {
  id: number;
  /** Its process, pid file, log and data folder are named after it. */
  name: string;
  host: string;
  port: number;
  controllerPort: number;
  tlsPort: number;
  /** The network namespace it runs in, in a cluster (see broker-network.ts); a single broker runs on the host's loopback. */
  namespace?: string;
}

/**
 * One broker listens on the configured loopback address and ports. A cluster's three nodes have an
 * address each, in a /24 of 198.18.0.0/15 (the range set aside for network tests) picked by the
 * client port, so that two stacks (the campaign's, `npm start`'s) never share one; the ports are the
 * configured ones on every node.
 */
export function kafkaNodes(config: StackConfig): KafkaNode[] {
  const { host, port, controllerPort, tlsPort, brokers } = config.kafka;
  if (brokers === 1) return [{ id: 1, name: 'kafka', host, port, controllerPort, tlsPort }];
  const subnet = brokerSubnet(config);
  return [1, 2, 3].map((id) => ({
    id,
    name: id === 1 ? 'kafka' : `kafka-${id}`,
    host: `${subnet}.${10 + id}`,
    port,
    controllerPort,
    tlsPort,
    namespace: `${brokerBridge(config)}-${id}`,
  }));
}

/** The first three bytes of the cluster's addresses; the host is .1 on the bridge. */
export function brokerSubnet(config: StackConfig): string {
  return `198.18.${config.kafka.port % 256}`;
}

/** The bridge the cluster's namespaces hang on (an interface name: at most 15 characters). */
export function brokerBridge(config: StackConfig): string {
  return `tpk${config.kafka.port}`;
}

export function registryUrl(config: StackConfig): string {
  return `http://${config.registry.host}:${config.registry.port}/apis/ccompat/v7`;
}

export function prometheusUrl(config: StackConfig): string {
  return `http://${config.prometheus.host}:${config.prometheus.port}`;
}

export function zipkinUrl(config: StackConfig): string {
  return `http://${config.zipkin.host}:${config.zipkin.port}`;
}

/**
 * Where the services send their traces on this machine: the stack's Zipkin, unless the environment
 * already chose an exporter (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT…), which then wins.
 */
export function localTracingEnv(config: StackConfig = loadStackConfig()): NodeJS.ProcessEnv {
  if (process.env.OTEL_TRACES_EXPORTER || process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_SDK_DISABLED) return {};
  // Every task's trace on the local stack (the default keeps a tenth of those that went well): one to look at for each.
  return { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_ZIPKIN_ENDPOINT: `${zipkinUrl(config)}/api/v2/spans`, TRACE_SHARE: '1' };
}
