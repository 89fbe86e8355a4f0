import { execFile, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { localAuthFiles } from '@app/auth';
import { localKafkaEnv, localRegistryEnv } from '@app/kafka';
import { Platform } from './support/platform';
import { JsonBody } from './support/json-body';
import { PartnerClient } from './support/partner';
import { uniqueSuffix } from './support/unique';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..');
const jarOf = (kafkaClient: string) => path.join(root, `examples/java/target/outside-system-${kafkaClient}.jar`);
const pom = path.join(root, 'examples/java/pom.xml');

/**
 * examples/java, an outside system on Apache's own Kafka client and Apache Avro with nothing of this
 * project, built by Maven and run as a partner (requests, on its own topics) and `auditor` (the audit).
 */
describe('an outside system in Java', () => {
  const platform = new Platform();
  const requested: string[] = [];
  let partner: PartnerClient;
  const user = () => `${partner.name}:java-partner`;

  beforeAll(async () => {
    // The client the brokers ship with, and the last 3.x line.
    execFileSync('mvn', ['-q', '-B', '-f', pom, 'package'], { stdio: 'inherit' });
    execFileSync('mvn', ['-q', '-B', '-f', pom, 'package', '-Dkafka.version=3.9.1'], { stdio: 'inherit' });
    partner = await PartnerClient.add(`pj${uniqueSuffix()}`, platform.env.topicPrefix);
    await platform.start();
  });
  afterAll(async () => {
    await partner?.remove();
    await platform.stop();
  });

  async function java(as: 'partner' | 'auditor', args: string[], env: NodeJS.ProcessEnv = {}, kafkaClient = '4.1.2'): Promise<JsonBody> {
    const principal = as === 'partner' ? partner.principal : 'auditor';
    const partnerEnv = as === 'partner' ? { PARTNER: partner.name } : {};
    const { stdout } = await run('java', ['-jar', jarOf(kafkaClient), ...args], {
      env: { ...process.env, ...localKafkaEnv(principal), ...localRegistryEnv(principal), TOPIC_PREFIX: platform.env.topicPrefix, ...partnerEnv, ...env },
      timeout: 150_000,
    });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  }

  async function request(key: string, input: object, { extra = [] as string[], env = {} as NodeJS.ProcessEnv, kafkaClient = '4.1.2' } = {}) {
    const taskId = randomUUID();
    requested.push(taskId);
    const args = ['request', '--user', user(), '--key', key, '--input', JSON.stringify(input), '--task-id', taskId, ...extra];
    return { taskId, outcome: await java('partner', args, env, kafkaClient) };
  }

  it('gets TaskCompleted for a request', async () => {
    const { taskId, outcome } = await request('java-ok', { text: 'Q3' });
    expect(outcome).toMatchObject({ eventType: 'TaskCompleted', taskId, userId: user() });
  });

  it('gets TaskFailed, compensated, for a request the model refuses for good', async () => {
    const { taskId, outcome } = await request('java-refused', { simulate: { permanentFailure: true } });
    expect(outcome).toMatchObject({ eventType: 'TaskFailed', taskId, compensated: true });
    expect(await platform.quota(user())).toMatchObject({ refunded: 1 });
  });

  it('gets one outcome for the very same message published twice', async () => {
    const { taskId, outcome } = await request('java-twice', { text: 'again' }, { extra: ['--twice'] });
    expect(outcome).toMatchObject({ eventType: 'TaskCompleted', taskId });
    const task = await platform.settled(taskId);
    expect(task.timeline.filter((e: { eventType: string }) => e.eventType === 'TaskCompleted')).toHaveLength(1);
  });

  it('connects over the TLS listener, trusting the broker by its CA', async () => {
    const { taskId, outcome } = await request(
      'java-tls',
      { text: 'tls' },
      { env: { KAFKA_BROKERS: '127.0.0.1:19094', KAFKA_SSL_CA: localAuthFiles().kafkaCa } },
    );
    expect(outcome).toMatchObject({ eventType: 'TaskCompleted', taskId });
  });

  it('connects with the 3.x client (kafka-clients 3.9.1) as well', async () => {
    const { taskId, outcome } = await request('java-3x', { text: '3.x' }, { kafkaClient: '3.9.1' });
    expect(outcome).toMatchObject({ eventType: 'TaskCompleted', taskId });
  });

  it('audits what it published: every event decoded, one outcome per task', async () => {
    // Given the five tasks above settled (their notifications are the last events of their flows)
    for (const taskId of requested) await platform.settled(taskId);
    // When the auditor reads the history
    const audit = await java('auditor', ['audit']);
    // Then the counts are those of five requests (one published twice), four successes and one failure
    expect(audit).toMatchObject({
      counts: expect.objectContaining({
        TaskRequested: 6,
        TaskAccepted: 5,
        QuotaDebited: 5,
        TaskCompleted: 4,
        TaskFailed: 1,
        QuotaRefunded: 1,
        NotificationSent: 5,
      }),
      tasksWithTwoOutcomes: {},
      undecodable: 0,
    });
  });

  it("audits as the partner over its own topics: its requests and their outcomes, and nothing of the platform's own topics", async () => {
    for (const taskId of requested) await platform.settled(taskId);
    const audit = await java('partner', ['audit']);
    expect(audit).toEqual({ counts: { TaskRequested: 6, TaskCompleted: 4, TaskFailed: 1 }, tasksWithTwoOutcomes: {}, undecodable: 0 });
  });
});
