import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Role } from '@app/auth';
import { defaults, serviceNames } from '@app/config';
import { EventType, topicFor } from '@app/events';
import { consumerGroupsOf, serviceEvents, ServicePrincipal } from '@app/catalogue';
import { createKafka, localKafkaEnv, localRegistryEnv } from '@app/kafka';
import { AppName, RunningService, startService, stopService, waitForHealth } from '../../tools/run/service-process';
import { writeScrapeTargets } from '../../tools/stack/prometheus';
import { loadStackConfig, localTracingEnv, prometheusUrl } from '../../tools/stack/stack.config';
import { removeTestData } from './remove-test-data';
import { TestEnv } from './test-env';
import { freePort } from './unique';
import { asAdmin, authAs } from './tokens';
import { waitFor } from './wait-for';
import { JsonBody } from './json-body';

/** Every consumer group of the platform (a service's own, and its bookkeeping's) and what it reads. */
const subscriptions: Record<string, EventType[]> = Object.fromEntries(
  (Object.keys(serviceEvents) as ServicePrincipal[]).flatMap((service) => consumerGroupsOf(service).map(({ group, reads }) => [group, reads])),
);

/** Settings that make a test run of the platform fast: millisecond retries and polls. */
export const fastSettings: NodeJS.ProcessEnv = {
  GENERATION_RETRY_DELAYS: '50ms,100ms,150ms',
  GENERATION_POLL_INTERVAL: '50ms',
  MODEL_TIMEOUT: '500ms',
  OUTBOX_POLL_INTERVAL: '100ms',
  WEBHOOK_RETRY_INITIAL: '50ms',
  WEBHOOK_POLL_INTERVAL: '50ms',
  WEBHOOK_TIMEOUT: '1s',
  CONSUMER_RETRY_INITIAL: '20ms',
  // The timeline and other bookkeeping fetched at once, as the critical path is: a test reads them.
  BOOKKEEPING_FETCH_MIN_BYTES: '1',
  BOOKKEEPING_FETCH_MAX_WAIT: '100ms',
  // The bundled simulator stands in for the model, so its fault switches are allowed.
  MODEL_SIMULATION: 'on',
  // Test receivers listen on loopback over plain http: the explicit opt-in (the SSRF tests narrow it).
  WEBHOOK_ALLOW_INSECURE: 'on',
  WEBHOOK_ALLOWED_TARGETS: '127.0.0.1/32',
};

/**
 * The whole platform for one test file: the model simulator and the four services as real
 * processes, on the real stack, with their own databases, topic prefix and report folder.
 */
export class Platform {
  readonly env = new TestEnv();
  readonly reportsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reports-'));
  private readonly apps = new Map<AppName, RunningService>();
  private readonly extras: RunningService[] = [];
  /** The file that tells Prometheus to scrape this platform, once a console reads its charts. */
  private scrapeTargets?: string;

  constructor(
    private readonly settings: NodeJS.ProcessEnv = {},
    /** How long this world's task-requested (and tasks' dead letters) keep records: TASK_REQUESTED_RETENTION's default unless given. */
    private readonly requestRetentionMs?: number,
  ) {}

  url(name: AppName): string {
    return `http://127.0.0.1:${this.apps.get(name)!.port}`;
  }

  service(name: AppName): RunningService {
    return this.apps.get(name)!;
  }

  async start(): Promise<this> {
    await this.env.provision(this.requestRetentionMs);
    await this.startApp('model-simulator', await freePort());
    for (const name of serviceNames) this.apps.set(name, startService(name, await freePort(), this.envFor(name)));
    await Promise.all(serviceNames.map((name) => waitForHealth(this.apps.get(name)!)));
    return this;
  }

  /** Starts (or starts again, on the same port) one app, with `settings` of its own, and waits until it is healthy. */
  async startApp(name: AppName, port = this.apps.get(name)?.port, settings: NodeJS.ProcessEnv = {}): Promise<RunningService> {
    const app = startService(name, port ?? (await freePort()), { ...this.envFor(name), ...settings });
    this.apps.set(name, app);
    await waitForHealth(app);
    return app;
  }

  /** Another instance of a service, on the same databases and topics, with settings of its own. */
  async startAnotherInstance(name: AppName, settings: NodeJS.ProcessEnv = {}): Promise<RunningService> {
    const app = startService(name, await freePort(), { ...this.envFor(name), ...settings });
    this.extras.push(app);
    await waitForHealth(app);
    return app;
  }

  async kill(name: AppName): Promise<void> {
    await stopService(this.apps.get(name)!, 'SIGKILL');
  }

  async stop(): Promise<void> {
    if (this.scrapeTargets) fs.rmSync(this.scrapeTargets, { force: true });
    await Promise.all([...this.apps.values(), ...this.extras].map((app) => stopService(app)));
    await this.env.dropDatabases(serviceNames);
    await removeTestData(this.kafka, this.env.topicPrefix);
    fs.rmSync(this.reportsDir, { recursive: true, force: true });
  }

  /**
   * The operator console over this platform: its services' URLs, its topics, as the console
   * principal; the stack's Prometheus told to scrape these services, and the charts to read theirs.
   */
  async startConsole(): Promise<string> {
    const stack = loadStackConfig();
    const services = serviceNames.map((service) => ({ service, port: this.service(service).port }));
    this.scrapeTargets = writeScrapeTargets(stack, this.env.topicPrefix, services);
    await this.startApp('console', await freePort(), {
      CONSOLE_PROMETHEUS_URL: prometheusUrl(stack),
      CONSOLE_PROMETHEUS_SELECTOR: `platform="${this.env.topicPrefix}"`,
    });
    return this.url('console');
  }

  private envFor(name: AppName): NodeJS.ProcessEnv {
    if (name === 'console') {
      const serviceUrls = Object.fromEntries(serviceNames.map((s) => [`${s.toUpperCase()}_URL`, this.url(s)]));
      return {
        ...localTracingEnv(),
        ...this.settings,
        TOPIC_PREFIX: this.env.topicPrefix,
        ...localKafkaEnv('console'),
        ...localRegistryEnv('console'),
        ...serviceUrls,
      };
    }
    const simulator = this.apps.get('model-simulator');
    return {
      ...localTracingEnv(),
      ...fastSettings,
      ...this.settings,
      ...(name === 'model-simulator' ? {} : this.env.serviceEnv(name)),
      MODEL_BASE_URL: simulator ? `http://127.0.0.1:${simulator.port}` : '',
      REPORTS_DIR: this.reportsDir,
    };
  }

  /**
   * Waits until every service's consumer group has committed offsets up to the end of each topic it
   * reads: all that was on the topics has been processed.
   */
  async consumersCaughtUp(timeoutMs = 60_000): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      await waitFor(
        async () => {
          for (const [group, types] of Object.entries(subscriptions)) {
            const topics = types.map((type) => topicFor(type, this.env.topicPrefix));
            const committed = await admin.fetchOffsets({ groupId: `${this.env.topicPrefix}${group}`, topics });
            for (const topic of topics) {
              const ends = await admin.fetchTopicOffsets(topic);
              const group = committed.find((c) => c.topic === topic)?.partitions ?? [];
              for (const end of ends) {
                const offset = Number(group.find((p) => p.partition === end.partition)?.offset ?? -1);
                if (Number(end.high) > 0 && offset < Number(end.high)) return false;
              }
            }
          }
          return true;
        },
        { what: 'every consumer to catch up', timeoutMs, intervalMs: 250 },
      );
    } finally {
      await admin.disconnect();
    }
  }

  readonly kafka = createKafka('platform-test', [defaults.kafkaBrokers]);

  // --- the public API, as a client uses it: the user submits with their own token, the test looks as an admin

  async submit(userId: string, input: Record<string, unknown> = {}, key = `key-${Math.random()}`, reportType = 'summary') {
    const response = await fetch(`${this.url('tasks')}/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key, ...(await authAs(userId)) },
      body: JSON.stringify({ reportType, input }),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as JsonBody };
  }

  /** GET on a service as an admin. */
  async get<T = JsonBody>(app: AppName, path: string): Promise<T> {
    return (await fetch(`${this.url(app)}${path}`, { headers: await asAdmin() })).json() as Promise<T>;
  }

  async task(taskId: string): Promise<JsonBody> {
    return this.get('tasks', `/tasks/${taskId}`);
  }

  /** Waits until the task is terminal and its user was notified, then returns it. */
  async settled(taskId: string, timeoutMs = 60_000): Promise<JsonBody> {
    return waitFor(
      async () => {
        const task = await this.task(taskId);
        const done = ['SUCCESS', 'FAILED', 'COMPENSATED', 'CANCELLED'].includes(task.state);
        return done && task.timeline.some((e: { eventType: string }) => e.eventType === 'NotificationSent') && task;
      },
      { what: `task ${taskId} to settle`, timeoutMs },
    );
  }

  async quota(userId: string): Promise<{ balance: number; debited: number; refunded: number }> {
    return this.get('quota', `/quota/${userId}`);
  }

  async notifications(userId: string): Promise<Array<JsonBody>> {
    return (await this.get<{ items: Array<JsonBody> }>('notification', `/notifications?userId=${userId}`)).items;
  }

  async generation(taskId: string): Promise<JsonBody> {
    return this.get('generation', `/generations/${taskId}`);
  }

  async cancellations(): Promise<string[]> {
    return (await this.modelRecord()).cancellations.map((c) => c.requestId);
  }

  /** Model requests whose connection the caller (generation) closed while the simulator still held them. */
  async abortedModelCalls(): Promise<string[]> {
    return (await this.modelRecord()).closedByCaller.map((c) => c.requestId);
  }

  private async modelRecord() {
    return (await (await fetch(`${this.url('model-simulator')}/v1/cancellations`)).json()) as {
      cancellations: Array<{ requestId: string }>;
      closedByCaller: Array<{ requestId: string }>;
    };
  }

  /** POST /tasks/{taskId}/cancel as `userId` (with `roles`), under `key`. */
  async cancel(taskId: string, userId: string, key = `cancel-${Math.random()}`, ...roles: Role[]) {
    const response = await fetch(`${this.url('tasks')}/tasks/${taskId}/cancel`, {
      method: 'POST',
      headers: { 'idempotency-key': key, ...(await authAs(userId, ...roles)) },
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as JsonBody };
  }
}
