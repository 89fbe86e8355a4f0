import { ensureArtifacts } from './artifacts';
import { provisionPartner, provisionTopicsAndAcls, registerSchemas } from '@app/kafka-admin';
import { kafkaAnswers, kafkaProcess, startKafka, stopKafka } from './kafka';
import { postgresAnswers, postgresProcess, startPostgres, stopPostgres } from './postgres';
import { runningPid, portIsOpen, StackError } from './processes';
import { registryAnswers, registryProcess, startRegistry, stopRegistry } from './registry';
import { registryGateProcess } from './registry-gate';
import { ensureSigningKeys } from './signing-keys';
import { startZipkin, stopZipkin, zipkinAnswers, zipkinProcess } from './zipkin';
import { knownPartners } from './partners';
import { prometheusAnswers, prometheusProcess, startPrometheus, stopPrometheus } from './prometheus';
import { createKafka, EventCodec, localKafkaCredentials, localRegistryCredentials } from '@app/kafka';
import { kafkaBootstrap, kafkaBrokers, loadStackConfig, prometheusUrl, registryUrl, StackConfig, zipkinUrl } from './stack.config';

export interface PartStatus {
  part: string;
  address: string;
  answers: boolean;
  pid?: number;
  log?: string;
}

/**
 * Brings PostgreSQL, Kafka and the registry up; a part that is already up is left as it is.
 * When a part fails, the parts this call started are stopped again, so nothing is left half-started.
 */
export async function stackUp(config: StackConfig = loadStackConfig(), report: (line: string) => void = () => undefined) {
  const startedHere: Array<() => Promise<boolean>> = [];
  try {
    const postgres = await startPostgres(config);
    if (postgres === 'started') startedHere.push(() => stopPostgres(config));
    const replicated =
      config.postgres === 'replicated'
        ? ` (a primary and a${config.postgresReplication === 'synchronous' ? ' synchronous' : 'n asynchronous'} standby under Patroni, through HAProxy)`
        : '';
    report(`postgres  ${postgres.padEnd(10)} ${redactedDatabaseUrl(config)}${replicated}`);
    report(`tokens    ${(await ensureSigningKeys(config.stackDir)).padEnd(10)} signing key pair in ${config.stackDir}/auth (npm run -s token -- --user <id>)`);

    // Refuse a port held by someone else before fetching or starting anything.
    // A cluster's nodes listen on addresses of the stack's own (broker-network.ts).
    if (config.kafka.brokers === 1) await refuseForeignPort('kafka', config.kafka.host, config.kafka.port, runningPid(kafkaProcess(config)));
    await refuseForeignPort('registry', config.registry.host, config.registry.port, runningPid(registryGateProcess(config)));
    await refuseForeignPort('zipkin', config.zipkin.host, config.zipkin.port, runningPid(zipkinProcess(config)));
    await refuseForeignPort('prometheus', config.prometheus.host, config.prometheus.port, runningPid(prometheusProcess(config)));
    ensureArtifacts(config);

    startedHere.push(() => stopKafka(config));
    const kafka = await startKafka(config);
    if (kafka === 'already up') startedHere.pop();
    const nodes = config.kafka.brokers === 1 ? '' : ` (${config.kafka.brokers} nodes, each in its network namespace)`;
    report(`kafka     ${kafka.padEnd(10)} ${kafkaBrokers(config)}${nodes}  log ${kafkaProcess(config).logFile}`);
    await provisionKafka(config);
    report(`topics    ready      event topics, dead letters and every principal's ACLs (npm run -s kafka:credentials -- <principal>)`);

    startedHere.push(() => stopRegistry(config));
    const registry = await startRegistry(config);
    if (registry === 'already up') startedHere.pop();
    report(
      `registry  ${registry.padEnd(10)} ${registryUrl(config)}  (Basic credentials: npm run -s kafka:credentials -- <principal>)  log ${registryProcess(config).logFile}`,
    );
    report(`schemas   ready      ${await provisionSchemas(config)} event schemas registered as admin; the services only read them`);

    startedHere.push(() => stopZipkin(config));
    const zipkin = await startZipkin(config);
    if (zipkin === 'already up') startedHere.pop();
    report(`zipkin    ${zipkin.padEnd(10)} ${zipkinUrl(config)}  (traces)  log ${zipkinProcess(config).logFile}`);

    startedHere.push(() => stopPrometheus(config));
    const prometheus = await startPrometheus(config);
    if (prometheus === 'already up') startedHere.pop();
    report(`prometheus ${prometheus.padEnd(9)} ${prometheusUrl(config)}  (metrics, alerts)  log ${prometheusProcess(config).logFile}`);
  } catch (error) {
    for (const stop of startedHere.reverse()) await stop().catch(() => false);
    throw error;
  }
}

/** Stops only what the stack started (by pid file); an external PostgreSQL is never touched. */
export async function stackDown(config: StackConfig = loadStackConfig(), report: (line: string) => void = () => undefined) {
  report(`prometheus ${(await stopPrometheus(config)) ? 'stopped' : 'was not running'}`);
  report(`zipkin    ${(await stopZipkin(config)) ? 'stopped' : 'was not running'}`);
  // Registry before PostgreSQL: it keeps its data there.
  report(`registry  ${(await stopRegistry(config)) ? 'stopped' : 'was not running'}`);
  report(`kafka     ${(await stopKafka(config)) ? 'stopped' : 'was not running'}`);
  report(`postgres  ${(await stopPostgres(config)) ? 'stopped' : 'not ours to stop, or not running'}`);
}

export async function stackStatus(config: StackConfig = loadStackConfig()): Promise<PartStatus[]> {
  return [
    {
      part: 'postgres',
      address: redactedDatabaseUrl(config),
      answers: await postgresAnswers(config.databaseUrl),
      pid: runningPid(postgresProcess(config)),
    },
    {
      part: 'kafka',
      address: kafkaBrokers(config),
      answers: await kafkaAnswers(config),
      pid: runningPid(kafkaProcess(config)),
      log: kafkaProcess(config).logFile,
    },
    {
      part: 'registry',
      address: registryUrl(config),
      answers: await registryAnswers(config),
      pid: runningPid(registryProcess(config)),
      log: registryProcess(config).logFile,
    },
    {
      part: 'zipkin',
      address: zipkinUrl(config),
      answers: await zipkinAnswers(config),
      pid: runningPid(zipkinProcess(config)),
      log: zipkinProcess(config).logFile,
    },
    {
      part: 'prometheus',
      address: prometheusUrl(config),
      answers: await prometheusAnswers(config),
      pid: runningPid(prometheusProcess(config)),
      log: prometheusProcess(config).logFile,
    },
  ];
}

/** A port held by someone else would make our process fail obscurely; say so plainly instead. */
async function refuseForeignPort(part: string, host: string, port: number, ourPid?: number) {
  if (ourPid === undefined && (await portIsOpen(host, port))) {
    throw new StackError(part, `port ${host}:${port} is already taken by a process the stack did not start; free it or set another port`);
  }
}

function redactedDatabaseUrl(config: StackConfig): string {
  const url = new URL(config.databaseUrl);
  if (url.password) url.password = '***';
  return url.toString();
}

/** Every event's schema (behind TOPIC_PREFIX, if set), registered as admin: the one registry principal that may write. */
function provisionSchemas(config: StackConfig): Promise<number> {
  const admin = localRegistryCredentials('admin', config.stackDir);
  return registerSchemas(new EventCodec(registryUrl(config), process.env.TOPIC_PREFIX ?? '', { auth: admin }));
}

/** The platform's topics (behind TOPIC_PREFIX, if set) and their ACLs, made as admin. */
async function provisionKafka(config: StackConfig): Promise<void> {
  const admin = localKafkaCredentials('admin', config.stackDir)!;
  const kafka = createKafka('stack', kafkaBootstrap(config), { sasl: { mechanism: 'scram-sha-512', ...admin }, ssl: undefined });
  await provisionTopicsAndAcls(kafka, process.env.TOPIC_PREFIX ?? '');
  // A broker formatted again keeps the partners' credentials (they are among the stack's passwords), not their topics.
  for (const partner of knownPartners(config)) await provisionPartner(kafka, partner, process.env.TOPIC_PREFIX ?? '');
}
