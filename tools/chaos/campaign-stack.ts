import * as fs from 'node:fs';
import * as path from 'node:path';
import { createKnex } from '@app/database';
import { kafkaProcess, startKafka, startKafkaNode, stopKafka } from '../stack/kafka';
import { databaseUrlFor, postgresDataDir, postgresProcess, startPostgres, stopPostgres } from '../stack/postgres';
import { postgresNodes } from '../stack/postgres-ha';
import { crashPrimary } from './database-faults';
import { runningPid, sleep } from '../stack/processes';
import { registryProcess, startRegistry, stopRegistry } from '../stack/registry';
import { stackUp } from '../stack/stack';
import { addPartner } from '../stack/partners';
import { campaignPartners } from './outside-systems';
import { stopZipkin } from '../stack/zipkin';
import { stopPrometheus } from '../stack/prometheus';
import { KafkaNode, loadStackConfig, StackConfig } from '../stack/stack.config';

/**
 * The campaign's own stack: its own folder and ports, and a private PostgreSQL cluster (made with
 * initdb, since nothing answers on its port), so that killing the database or the broker never
 * touches `npm start`'s stack or the machine's own server. Its data is made fresh for every run.
 */
export const campaignPorts = {
  kafka: 29092,
  controller: 29093,
  tls: 29094,
  registry: 28081,
  postgres: 25432,
  zipkin: 29411,
  prometheus: 29090,
};

export function campaignStackConfig(rootDir: string, brokers: 1 | 3 = 1, postgres: StackConfig['postgres'] = 'single'): StackConfig {
  const env = {
    STACK_BROKERS: String(brokers),
    STACK_POSTGRES: postgres,
    STACK_DIR: path.join(rootDir, 'chaos', 'stack'),
    KAFKA_PORT: String(campaignPorts.kafka),
    KAFKA_CONTROLLER_PORT: String(campaignPorts.controller),
    KAFKA_TLS_PORT: String(campaignPorts.tls),
    REGISTRY_PORT: String(campaignPorts.registry),
    ZIPKIN_PORT: String(campaignPorts.zipkin),
    PROMETHEUS_PORT: String(campaignPorts.prometheus),
    DATABASE_URL: `postgres://postgres@127.0.0.1:${campaignPorts.postgres}/postgres`,
  };
  return loadStackConfig({ ...process.env, ...env });
}

/** Stops whatever an earlier run left, wipes its data (keeping the fetched jars), and starts afresh, with the campaign's partners. */
export async function freshCampaignStack(config: StackConfig, report: (line: string) => void): Promise<void> {
  await stopCampaignStack(config);
  for (const dir of ['data', 'run', 'auth', 'reports']) fs.rmSync(path.join(config.stackDir, dir), { recursive: true, force: true });
  fs.rmSync(postgresDataDir(config), { recursive: true, force: true });
  fs.rmSync(path.dirname(postgresNodes(config)[0].home), { recursive: true, force: true });
  await stackUp(config, report);
  for (const partner of campaignPartners) await addPartner(config, partner);
  report(`partners  ${campaignPartners.join(', ')} (their principals, topics and grants)`);
}

export async function stopCampaignStack(config: StackConfig): Promise<void> {
  // A run cut short may have left the database stopped (blackhole-postgres): it must hear the stop.
  signalPart(config, 'postgres', 'SIGCONT');
  await stopPrometheus(config);
  await stopZipkin(config);
  await stopRegistry(config);
  await stopKafka(config);
  await stopPostgres(config);
}

export type StackPart = 'kafka' | 'registry' | 'postgres';

const processOf = { kafka: kafkaProcess, registry: registryProcess, postgres: postgresProcess };

/** Signals a part's whole process group (runuser and postgres, or the JVM). */
export function signalPart(config: StackConfig, part: StackPart, signal: NodeJS.Signals): boolean {
  const pid = runningPid(processOf[part](config));
  if (pid === undefined) return false;
  try {
    process.kill(-pid, signal);
  } catch {
    process.kill(pid, signal);
  }
  return true;
}

/**
 * A hard stop: SIGKILL for the JVMs; for PostgreSQL, SIGQUIT, its immediate shutdown (`pg_ctl stop -m
 * immediate`), which ends every backend without a checkpoint, as a crash would (of a replicated
 * database, the primary's, which its Patroni then starts again).
 */
export async function crashPart(config: StackConfig, part: StackPart): Promise<void> {
  if (part === 'postgres' && config.postgres === 'replicated') return crashPrimary(config);
  const proc = processOf[part](config);
  const pid = runningPid(proc);
  if (pid === undefined) return;
  signalPart(config, part, part === 'postgres' ? 'SIGQUIT' : 'SIGKILL');
  const deadline = Date.now() + 30_000;
  while (runningPid(proc) !== undefined && Date.now() < deadline) await sleep(100);
  if (runningPid(proc) !== undefined) signalPart(config, part, 'SIGKILL');
  while (runningPid(proc) !== undefined) await sleep(100);
}

export async function restartPart(config: StackConfig, part: StackPart): Promise<void> {
  if (part === 'postgres') await startPostgres(config);
  else if (part === 'kafka') await startKafka(config);
  else await startRegistry(config);
}

/**
 * A failover as a service sees it: its database turns read-only (new sessions refuse writes, with
 * SQLSTATE 25006) and its open sessions are ended; healing turns writes back on the same way.
 */
export async function setReadOnly(config: StackConfig, database: string, readOnly: boolean): Promise<void> {
  const admin = createKnex(databaseUrlFor(config, 'postgres'), 1, { quiet: true });
  try {
    await admin.raw(`alter database ?? set default_transaction_read_only = ${readOnly ? 'on' : 'off'}`, [database]);
    await admin.raw('select pg_terminate_backend(pid) from pg_stat_activity where datname = ? and pid <> pg_backend_pid()', [database]);
  } finally {
    await admin.destroy();
  }
}

/** Signals one Kafka node's process group. */
export function signalNode(config: StackConfig, node: KafkaNode, signal: NodeJS.Signals): boolean {
  const pid = runningPid(kafkaProcess(config, node));
  if (pid === undefined) return false;
  try {
    process.kill(-pid, signal);
  } catch {
    process.kill(pid, signal);
  }
  return true;
}

/** kill -9 of one node, waited for until it is gone. */
export async function crashNode(config: StackConfig, node: KafkaNode): Promise<void> {
  const proc = kafkaProcess(config, node);
  signalNode(config, node, 'SIGKILL');
  while (runningPid(proc) !== undefined) await sleep(100);
}

/** One node started again; resolves once the cluster lists it. */
export function restartNode(config: StackConfig, node: KafkaNode): Promise<void> {
  return startKafkaNode(config, node);
}
