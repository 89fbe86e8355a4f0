import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kafkaAnswers as kafkaBrokersAnswer } from '@app/messaging';
import { kafkaLibs } from './artifacts';
import { managed, ManagedProcess, runningPid, startDetached, StackError, stopManaged, waitUntilReady } from './processes';
import { kafkaBrokers, StackConfig } from './stack.config';
import { requireCommand } from './toolchain';

export function kafkaProcess(config: StackConfig): ManagedProcess {
  return managed(config.runDir, config.logsDir, 'kafka');
}

/** One KRaft node acting as broker and controller; internal topics need replication factor 1. */
function serverProperties(config: StackConfig, dataDir: string): string {
  const { host, port, controllerPort } = config.kafka;
  const settings: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@${host}:${controllerPort}`,
    listeners: `PLAINTEXT://${host}:${port},CONTROLLER://${host}:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${host}:${port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
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
  return [
    '-cp',
    `${kafkaLibs(config)}/*`,
    `-Dlog4j2.configurationFile=${path.join(__dirname, 'log4j2.properties')}`,
  ];
}

/** Formats the storage once; the meta.properties file marks a formatted directory. */
function ensureFormatted(config: StackConfig, propertiesFile: string, dataDir: string): void {
  if (fs.existsSync(path.join(dataDir, 'meta.properties'))) return;
  const java = requireCommand('java', 'default-jre-headless');
  const clusterId = randomBytes(16).toString('base64url');
  execFileSync(java, [...javaClasspathArgs(config), 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', propertiesFile], {
    stdio: 'ignore',
  });
}

export function kafkaAnswers(config: StackConfig): Promise<boolean> {
  return kafkaBrokersAnswer([kafkaBrokers(config)]);
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
  fs.writeFileSync(propertiesFile, serverProperties(config, dataDir));
  try {
    ensureFormatted(config, propertiesFile, dataDir);
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
