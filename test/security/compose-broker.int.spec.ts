import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Kafka, KafkaConfig, logLevel } from 'kafkajs';
import { kafkaLibs } from '../../tools/stack/artifacts';
import { loadStackConfig } from '../../tools/stack/stack.config';
import { freePort } from '../support/unique';
import { waitFor } from '../support/wait-for';

/**
 * docker/compose.yml's broker runs docker/kafka/start-broker.sh inside the apache/kafka image. This
 * runs the same script on the stack's Kafka jars (through stand-ins for the image's two bin scripts),
 * so the broker Docker users get is proven to authenticate everyone and authorize by ACL.
 */
describe('the compose broker (docker/kafka/start-broker.sh)', () => {
  const stack = loadStackConfig();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-broker-'));
  const secrets = path.join(work, 'secrets');
  const passwords = { admin: 'admin-secret', tasks: 'tasks-secret' };
  let broker: ChildProcess | undefined;
  let port = 0;
  const clients: Array<{ disconnect(): Promise<void> }> = [];

  const client = (sasl?: { username: string; password: string }): Kafka =>
    new Kafka({
      clientId: 'compose-broker-test',
      brokers: [`127.0.0.1:${port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      connectionTimeout: 3000,
      ...(sasl ? { sasl: { mechanism: 'scram-sha-512', ...sasl } } : {}),
    } as KafkaConfig);
  const adminOf = async (kafka: Kafka) => {
    const admin = kafka.admin();
    clients.push(admin);
    await admin.connect();
    return admin;
  };

  function standInBin(): string {
    const bin = path.join(work, 'bin');
    fs.mkdirSync(bin);
    const java = `exec java -Xmx256m -cp '${kafkaLibs(stack)}/*' -Dlog4j2.configurationFile=${path.join(stack.rootDir, 'tools/stack/log4j2.properties')}`;
    fs.writeFileSync(path.join(bin, 'kafka-storage.sh'), `#!/bin/sh\n${java} kafka.tools.StorageTool "$@"\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'kafka-server-start.sh'), `#!/bin/sh\n${java} kafka.Kafka "$@"\n`, { mode: 0o755 });
    return bin;
  }

  async function startBroker(ports: { internal: number; external: number; controller: number }, bin: string) {
    broker = spawn('sh', [path.join(stack.rootDir, 'docker/kafka/start-broker.sh')], {
      env: {
        ...process.env,
        KAFKA_BIN: bin,
        SECRETS_DIR: secrets,
        DATA_DIR: path.join(work, 'data'),
        CONFIG_FILE: path.join(work, 'server.properties'),
        KAFKA_LISTENERS: `INTERNAL://127.0.0.1:${ports.internal},EXTERNAL://127.0.0.1:${ports.external},CONTROLLER://127.0.0.1:${ports.controller}`,
        KAFKA_ADVERTISED_LISTENERS: `INTERNAL://127.0.0.1:${ports.internal},EXTERNAL://127.0.0.1:${ports.external}`,
        KAFKA_CONTROLLER_QUORUM_VOTERS: `1@127.0.0.1:${ports.controller}`,
      },
      stdio: ['ignore', fs.openSync(path.join(work, 'broker.log'), 'a'), fs.openSync(path.join(work, 'broker.log'), 'a')],
    });
    await waitFor(
      async () => {
        const admin = client({ username: 'admin', password: passwords.admin }).admin();
        try {
          await admin.connect();
          await admin.listTopics();
          return true;
        } catch {
          return false;
        } finally {
          await admin.disconnect().catch(() => undefined);
        }
      },
      { timeoutMs: 90_000, what: `the compose broker to answer (see ${work}/broker.log)` },
    );
  }

  async function stopBroker() {
    if (!broker || broker.exitCode !== null) return;
    const exited = new Promise((resolve) => broker!.once('exit', resolve));
    broker.kill('SIGKILL');
    await exited;
  }

  beforeAll(async () => {
    fs.mkdirSync(secrets, { mode: 0o700 });
    for (const [principal, password] of Object.entries(passwords)) fs.writeFileSync(path.join(secrets, `kafka-${principal}.password`), `${password}\n`);
    const [internal, external, controller] = await Promise.all([freePort(), freePort(), freePort()]);
    port = external;
    await startBroker({ internal, external, controller }, standInBin());
  });
  afterAll(async () => {
    for (const c of clients) await c.disconnect().catch(() => undefined);
    await stopBroker();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('formats the storage with every principal from the secrets: each authenticates, a wrong password or none is refused', async () => {
    const tasks = await adminOf(client({ username: 'tasks', password: passwords.tasks }));
    await expect(tasks.listTopics()).resolves.toBeDefined();
    await expect(adminOf(client({ username: 'tasks', password: 'guessed' })).then((a) => a.listTopics())).rejects.toThrow(/SASL|authentication/i);
    await expect(adminOf(client()).then((a) => a.listTopics())).rejects.toThrow();
  });

  it('authorizes by ACL: admin creates a topic, a principal without grants cannot create one nor see it', async () => {
    const admin = await adminOf(client({ username: 'admin', password: passwords.admin }));
    await admin.createTopics({ topics: [{ topic: 'compose-check', numPartitions: 1 }], waitForLeaders: true });
    const tasks = await adminOf(client({ username: 'tasks', password: passwords.tasks }));
    await expect(tasks.createTopics({ topics: [{ topic: 'tasks-made-this', numPartitions: 1 }] })).rejects.toMatchObject({
      errors: [expect.objectContaining({ type: 'TOPIC_AUTHORIZATION_FAILED' })],
    });
    expect(await tasks.listTopics()).not.toContain('compose-check');
    expect(await admin.listTopics()).toEqual(expect.arrayContaining(['compose-check']));
    expect(await admin.listTopics()).not.toContain('tasks-made-this');
  });

  it('starts again on its formatted storage (the script formats only the first time) and keeps its topics', async () => {
    await stopBroker();
    const [internal, controller] = await Promise.all([freePort(), freePort()]);
    await startBroker({ internal, external: port, controller }, path.join(work, 'bin'));
    const admin = await adminOf(client({ username: 'admin', password: passwords.admin }));
    expect(await admin.listTopics()).toContain('compose-check');
  });
});
