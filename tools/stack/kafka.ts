import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kafkaAnswers as kafkaBrokersAnswer, localKafkaCredentials } from '@app/kafka';
import { kafkaLibs } from './artifacts';
import { BrokerSecrets, ensureBrokerSecrets, scramFormatArguments, secureFormatMarker, securityProperties } from './kafka-security';
import { managed, ManagedProcess, runningPid, startDetached, StackError, stopManaged, waitUntilReady } from './processes';
import { KafkaNode, kafkaBootstrap, kafkaNodes, layoutFile, StackConfig } from './stack.config';
import { ensureBrokerNetwork, inNamespace, removeBrokerNetwork } from './broker-network';
import { requireCommand } from './toolchain';

export function kafkaProcess(config: StackConfig, node: KafkaNode = kafkaNodes(config)[0]): ManagedProcess {
  return managed(config.runDir, config.logsDir, node.name);
}

/**
 * Every node acts as broker and controller. One node: internal topics need replication factor 1.
 * Three: everything is kept three times and a write needs two copies (min.insync.replicas=2), no
 * replica out of sync is ever elected, and a follower that stops fetching leaves the in-sync
 * replicas after 10 s. Every listener authenticates (SCRAM-SHA-512 for clients and between brokers,
 * PLAIN for the controllers) and ACLs are enforced.
 */
function serverProperties(config: StackConfig, node: KafkaNode, dataDir: string, secrets: BrokerSecrets): string {
  const nodes = kafkaNodes(config);
  const replicas = nodes.length;
  const minInSync = replicas >= 3 ? 2 : 1;
  const settings: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': node.id,
    'controller.quorum.voters': quorumVoters(config),
    'controller.listener.names': 'CONTROLLER',
    ...securityProperties(secrets, node.host, { client: node.port, controller: node.controllerPort, tls: node.tlsPort }),
    'log.dirs': dataDir,
    'num.partitions': 3,
    'auto.create.topics.enable': false,
    'default.replication.factor': replicas,
    'min.insync.replicas': minInSync,
    'unclean.leader.election.enable': false,
    'replica.lag.time.max.ms': 10_000,
    'offsets.topic.replication.factor': replicas,
    'transaction.state.log.replication.factor': replicas,
    'transaction.state.log.min.isr': minInSync,
    'share.coordinator.state.topic.replication.factor': replicas,
    'share.coordinator.state.topic.min.isr': minInSync,
    'group.initial.rebalance.delay.ms': 0,
    // A deleted topic's files (and their handles) go after a second instead of a minute: the tests
    // make and delete hundreds of topics in a run.
    'log.segment.delete.delay.ms': 1000,
    // Topics with a bounded retention (outside requests: plaintext inputs) are checked every ten
    // seconds instead of five minutes: what has aged out goes soon after (docs/privacy.md).
    'log.retention.check.interval.ms': 10_000,
  };
  return Object.entries(settings)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
}

function quorumVoters(config: StackConfig): string {
  return kafkaNodes(config)
    .map((n) => `${n.id}@${n.host}:${n.controllerPort}`)
    .join(',');
}

export function javaClasspathArgs(config: StackConfig): string[] {
  return ['-cp', `${kafkaLibs(config)}/*`, `-Dlog4j2.configurationFile=${path.join(__dirname, 'log4j2.properties')}`];
}

const dataDirOf = (config: StackConfig, node: KafkaNode) => path.join(config.stackDir, 'data', node.name);
const propertiesFileOf = (config: StackConfig, node: KafkaNode) => path.join(config.stackDir, 'run', `${node.name}.properties`);

/**
 * Formats every node's storage, with one cluster id and every principal's SCRAM credential (KRaft
 * keeps them in the metadata log; kafkajs cannot create users). Storage formatted for another
 * quorum (one node then three, or before principals existed) is formatted again, every node's
 * together: the local stack's topics are test and demo data.
 */
function ensureFormatted(config: StackConfig, secrets: BrokerSecrets): void {
  const nodes = kafkaNodes(config);
  const layout = quorumVoters(config);
  const formatted = (node: KafkaNode) => {
    const marker = secureFormatMarker(dataDirOf(config, node));
    return fs.existsSync(path.join(dataDirOf(config, node), 'meta.properties')) && fs.existsSync(marker) && readMarker(marker) === layout;
  };
  if (nodes.every(formatted)) return;
  const java = requireCommand('java', 'default-jre-headless');
  // A base64url id may start with '-', which the storage tool reads as an option and fails on (as
  // Kafka's own random ids never do); one CI run in 64 met it.
  let clusterId = randomBytes(16).toString('base64url');
  while (clusterId.startsWith('-')) clusterId = randomBytes(16).toString('base64url');
  for (const node of nodes) {
    const dataDir = dataDirOf(config, node);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      execFileSync(
        java,
        [
          ...javaClasspathArgs(config),
          'kafka.tools.StorageTool',
          'format',
          '-t',
          clusterId,
          '-c',
          propertiesFileOf(config, node),
          ...scramFormatArguments(secrets),
        ],
        { stdio: 'ignore' },
      );
    } catch (error) {
      throw new StackError(node.name, `formatting Kafka storage in ${dataDir} failed: ${(error as Error).message}`);
    }
    fs.writeFileSync(secureFormatMarker(dataDir), layout);
  }
}

function readMarker(marker: string): string {
  const text = fs.readFileSync(marker, 'utf8');
  // A marker from before clusters held a date: that storage was formatted for one node on 127.0.0.1.
  return text.includes('@') ? text : `1@127.0.0.1:19093`;
}

/** The admin's client of the stack's brokers (the stack's own, whatever credentials the caller's environment holds). */
function adminSecurity(config: StackConfig) {
  const admin = localKafkaCredentials('admin', config.stackDir);
  return admin ? { sasl: { mechanism: 'scram-sha-512' as const, ...admin }, ssl: undefined } : {};
}

/** Every node answers, and the cluster counts them all. */
export function kafkaAnswers(config: StackConfig): Promise<boolean> {
  return kafkaBrokersAnswer(kafkaBootstrap(config), 2000, adminSecurity(config), kafkaNodes(config).length);
}

/** Starts every node not running (all at once: a quorum of three needs two to elect), and waits until the cluster counts them all. */
export async function startKafka(config: StackConfig): Promise<'started' | 'already up'> {
  const nodes = kafkaNodes(config);
  const running = nodes.map((node) => runningPid(kafkaProcess(config, node)));
  if (running.every((pid) => pid !== undefined)) {
    await waitUntilReady(kafkaProcess(config), running[0]!, () => kafkaAnswers(config), 60_000);
    return 'already up';
  }
  const secrets = ensureBrokerSecrets(
    config.stackDir,
    nodes.map((n) => n.host),
  );
  if (nodes.length > 1) ensureBrokerNetwork(config);
  for (const node of nodes) {
    fs.mkdirSync(path.dirname(propertiesFileOf(config, node)), { recursive: true });
    fs.writeFileSync(propertiesFileOf(config, node), serverProperties(config, node, dataDirOf(config, node), secrets), { mode: 0o600 });
  }
  if (running.every((pid) => pid === undefined)) ensureFormatted(config, secrets);
  const pids = nodes.map((node, i) => running[i] ?? startNode(config, node));
  fs.writeFileSync(layoutFile(config.stackDir), String(nodes.length));
  await Promise.all(nodes.map((node, i) => waitUntilReady(kafkaProcess(config, node), pids[i], () => kafkaAnswers(config), 90_000)));
  return 'started';
}

/** Starts one node of a running cluster again (after a fault) and waits until the cluster counts it. */
export async function startKafkaNode(config: StackConfig, node: KafkaNode): Promise<void> {
  const proc = kafkaProcess(config, node);
  const pid = runningPid(proc) ?? startNode(config, node);
  await waitUntilReady(proc, pid, () => nodeRegistered(config, node), 90_000);
}

function startNode(config: StackConfig, node: KafkaNode): number {
  const java = requireCommand('java', 'default-jre-headless');
  const heap = config.kafka.heap;
  const [command, args] = inNamespace(node, java, [`-Xms${heap}`, `-Xmx${heap}`, ...javaClasspathArgs(config), 'kafka.Kafka', propertiesFileOf(config, node)]);
  return startDetached(kafkaProcess(config, node), command, args);
}

/** The node answers, and the cluster (asked through the node itself) lists it. */
async function nodeRegistered(config: StackConfig, node: KafkaNode): Promise<boolean> {
  return kafkaBrokersAnswer([`${node.host}:${node.port}`], 2000, adminSecurity(config), 1, node.id);
}

/** Stops every node, whichever layout started them (a cluster's extra nodes too), and removes a cluster's network. */
export async function stopKafka(config: StackConfig): Promise<boolean> {
  const cluster: StackConfig = { ...config, kafka: { ...config.kafka, brokers: 3 } };
  const stopped = await Promise.all(kafkaNodes(cluster).map((node) => stopManaged(kafkaProcess(config, node))));
  fs.rmSync(layoutFile(config.stackDir), { force: true });
  const network = removeBrokerNetwork(cluster);
  return stopped.some(Boolean) || network;
}
