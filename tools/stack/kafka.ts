import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kafkaAnswers as kafkaBrokersAnswer, localKafkaCredentials } from '@app/messaging';
import { kafkaLibs } from './artifacts';
import { BrokerSecrets, ensureBrokerSecrets, scramFormatArguments, secureFormatMarker, securityProperties } from './kafka-security';
import { managed, ManagedProcess, runningPid, startDetached, StackError, stopManaged, waitUntilReady } from './processes';
import { kafkaBrokers, StackConfig } from './stack.config';
import { requireCommand } from './toolchain';

export function kafkaProcess(config: StackConfig): ManagedProcess {
  return managed(config.runDir, config.logsDir, 'kafka');
}

/**
 * One KRaft node acting as broker and controller; internal topics need replication factor 1. Every
 * listener authenticates (SCRAM-SHA-512 for clients, PLAIN for the controller) and ACLs are enforced.
 */
function serverProperties(config: StackConfig, dataDir: string, secrets: BrokerSecrets): string {
  const { host, port, controllerPort, tlsPort } = config.kafka;
  const settings: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@${host}:${controllerPort}`,
    'controller.listener.names': 'CONTROLLER',
    ...securityProperties(secrets, host, { client: port, controller: controllerPort, tls: tlsPort }),
    'log.dirs': dataDir,
    'num.partitions': 3,
    'auto.create.topics.enable': false,
    'offsets.topic.replication.factor': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'share.coordinator.state.topic.replication.factor': 1,
    'share.coordinator.state.topic.min.isr': 1,
    'group.initial.rebalance.delay.ms': 0,
    // A deleted topic's files (and their handles) go after a second instead of a minute: the tests
    // make and delete hundreds of topics in a run.
    'log.segment.delete.delay.ms': 1000,
  };
  return Object.entries(settings)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
}

function javaClasspathArgs(config: StackConfig): string[] {
  return ['-cp', `${kafkaLibs(config)}/*`, `-Dlog4j2.configurationFile=${path.join(__dirname, 'log4j2.properties')}`];
}

/**
 * Formats the storage once, with every principal's SCRAM credential (KRaft keeps them in the metadata
 * log; kafkajs cannot create users). A storage formatted before principals existed is formatted
 * again: the local stack's topics are test and demo data.
 */
function ensureFormatted(config: StackConfig, propertiesFile: string, dataDir: string, secrets: BrokerSecrets): void {
  const marker = secureFormatMarker(dataDir);
  if (fs.existsSync(path.join(dataDir, 'meta.properties')) && fs.existsSync(marker)) return;
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  const java = requireCommand('java', 'default-jre-headless');
  // A base64url id may start with '-', which the storage tool reads as an option and fails on (as
  // Kafka's own random ids never do); one CI run in 64 met it.
  let clusterId = randomBytes(16).toString('base64url');
  while (clusterId.startsWith('-')) clusterId = randomBytes(16).toString('base64url');
  execFileSync(
    java,
    [...javaClasspathArgs(config), 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', propertiesFile, ...scramFormatArguments(secrets)],
    {
      stdio: 'ignore',
    },
  );
  fs.writeFileSync(marker, new Date().toISOString());
}

/** The broker answers the admin (the stack's own check, whatever credentials the caller's environment holds). */
export function kafkaAnswers(config: StackConfig): Promise<boolean> {
  const admin = localKafkaCredentials('admin', config.stackDir);
  return kafkaBrokersAnswer([kafkaBrokers(config)], 2000, admin ? { sasl: { mechanism: 'scram-sha-512', ...admin }, ssl: undefined } : {});
}

export async function startKafka(config: StackConfig): Promise<'started' | 'already up'> {
  const proc = kafkaProcess(config);
  const existing = runningPid(proc);
  if (existing !== undefined) {
    await waitUntilReady(proc, existing, () => kafkaAnswers(config), 60_000);
    return 'already up';
  }
  const dataDir = path.join(config.stackDir, 'data', 'kafka');
  const propertiesFile = path.join(config.stackDir, 'run', 'kafka.properties');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.mkdirSync(path.dirname(propertiesFile), { recursive: true });
  const secrets = ensureBrokerSecrets(config.stackDir);
  fs.writeFileSync(propertiesFile, serverProperties(config, dataDir, secrets), { mode: 0o600 });
  try {
    ensureFormatted(config, propertiesFile, dataDir, secrets);
  } catch (error) {
    throw new StackError('kafka', `formatting Kafka storage in ${dataDir} failed: ${(error as Error).message}`);
  }
  const java = requireCommand('java', 'default-jre-headless');
  const heap = config.kafka.heap;
  const pid = startDetached(proc, java, [`-Xms${heap}`, `-Xmx${heap}`, ...javaClasspathArgs(config), 'kafka.Kafka', propertiesFile]);
  await waitUntilReady(proc, pid, () => kafkaAnswers(config), 90_000);
  return 'started';
}

export function stopKafka(config: StackConfig): Promise<boolean> {
  return stopManaged(kafkaProcess(config));
}
