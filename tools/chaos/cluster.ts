import * as path from 'node:path';
import { ServicePrincipal } from '@app/catalogue';
import { localKafkaEnv, localRegistryEnv } from '@app/kafka';
import type { Release } from '../deploy/release';
import { AppName, RunningService, startService, stopService, waitForHealth } from '../run/service-process';
import { kafkaBrokers, localTracingEnv, registryUrl, StackConfig } from '../stack/stack.config';

export const services: ServicePrincipal[] = ['tasks', 'quota', 'generation', 'notification'];

/** One running copy of an app, restartable in place on the same port. */
export interface Instance {
  id: string;
  app: AppName;
  port: number;
  process?: RunningService;
  stopped: boolean;
  /** The release it runs when not the head's build (a rolling deploy starts the services at the previous one). */
  release?: Release;
}

/**
 * Short deadlines and retries, so that a campaign of minutes sees every path end: a hung model call
 * times out, a task with no outcome times out, a lost attempt is reconciled.
 */
/** What all the users of one namespace may draw without a grant, in the campaign: the budget invariant holds each to it. */
export const partnerDrawCap = 1000;

const campaignSettings: NodeJS.ProcessEnv = {
  GENERATION_RETRY_DELAYS: '200ms,500ms,1s',
  GENERATION_POLL_INTERVAL: '200ms',
  MODEL_TIMEOUT: '3s',
  OUTBOX_POLL_INTERVAL: '200ms',
  WEBHOOK_RETRY_INITIAL: '200ms',
  WEBHOOK_RETRY_MAX: '3s',
  WEBHOOK_MAX_ATTEMPTS: '12',
  WEBHOOK_POLL_INTERVAL: '200ms',
  WEBHOOK_TIMEOUT: '2s',
  CONSUMER_RETRY_INITIAL: '50ms',
  CONSUMER_OUTAGE_MAX_DELAY: '2s',
  TASK_DEADLINE: '90s',
  TASK_DEADLINE_GRACE: '30s',
  TASK_DEADLINE_CHECK_INTERVAL: '5s',
  RECONCILE_DEADLINE: '60s',
  RECONCILE_INTERVAL: '5s',
  USER_RATE_LIMIT: '50',
  USER_RATE_BURST: '100',
  MODEL_SIMULATION: 'on',
  WEBHOOK_ALLOW_INSECURE: 'on',
  WEBHOOK_ALLOWED_TARGETS: '127.0.0.1/32',
  LOG_LEVEL: 'warn',
};

/** The model simulator and `instances` copies of every service, on the campaign's stack. */
export class Cluster {
  readonly instances: Instance[] = [];
  private stopping = false;

  constructor(
    private readonly stack: StackConfig,
    instances: number,
    private readonly grantedQuota: number,
    private readonly log: (line: string) => void,
    startingRelease?: Release,
  ) {
    this.instances.push({ id: 'model-simulator', app: 'model-simulator', port: 23090, stopped: false });
    services.forEach((service, s) =>
      Array.from({ length: instances }, (_, i) =>
        this.instances.push({ id: `${service}-${i + 1}`, app: service, port: 23000 + s * 10 + i, stopped: false, release: startingRelease }),
      ),
    );
  }

  get serviceInstances(): Instance[] {
    return this.instances.filter((i) => i.app !== 'model-simulator');
  }

  /** The first instance of a service: where the workload and the checker ask. */
  url(app: AppName, nth = 0): string {
    return `http://127.0.0.1:${this.instances.filter((i) => i.app === app)[nth].port}`;
  }

  urls(app: AppName): string[] {
    return this.instances.filter((i) => i.app === app).map((i) => `http://127.0.0.1:${i.port}`);
  }

  async startAll(): Promise<void> {
    await Promise.all(this.instances.map((instance) => this.start(instance)));
  }

  async start(instance: Instance): Promise<void> {
    instance.stopped = false;
    const env: NodeJS.ProcessEnv = {
      ...campaignSettings,
      DEFAULT_QUOTA: String(this.grantedQuota),
      // A namespace's users start with the same grant; its cap holds every campaign user's
      PARTNER_NEW_USER_QUOTA: String(this.grantedQuota),
      PARTNER_DRAW_CAP: String(partnerDrawCap),
      STACK_DIR: this.stack.stackDir,
      DATABASE_URL: this.stack.databaseUrl,
      KAFKA_BROKERS: kafkaBrokers(this.stack),
      SCHEMA_REGISTRY_URL: registryUrl(this.stack),
      TOPIC_PREFIX: '',
      MODEL_BASE_URL: this.url('model-simulator'),
      REPORTS_DIR: path.join(this.stack.stackDir, 'reports'),
      ...localTracingEnv(this.stack),
      ...(instance.app === 'model-simulator'
        ? {}
        : { ...localKafkaEnv(instance.app, this.stack.stackDir), ...localRegistryEnv(instance.app, this.stack.stackDir) }),
    };
    const running = startService(instance.app, instance.port, env, (line) => this.log(`[${instance.id}] ${line}`), instance.release?.dir);
    instance.process = running;
    running.child.once('exit', (code, signal) => this.log(`[${instance.id}] exited (${code ?? signal})`));
    await waitForHealth(running, 200, 180_000).catch((error: Error) => this.log(`[${instance.id}] not healthy yet: ${error.message.split('\n')[0]}`));
  }

  /** SIGTERM, as a deploy stops an instance: it leaves its groups and ends what it holds first. */
  async stopGracefully(instance: Instance): Promise<void> {
    instance.stopped = true;
    if (instance.process) await stopService(instance.process, 'SIGTERM', 30_000);
  }

  /** `kill -9`: the process gets no chance to finish anything. */
  kill(instance: Instance): void {
    instance.stopped = true;
    instance.process?.child.kill('SIGKILL');
  }

  pause(instance: Instance): void {
    instance.process?.child.kill('SIGSTOP');
  }

  resume(instance: Instance): void {
    instance.process?.child.kill('SIGCONT');
  }

  isRunning(instance: Instance): boolean {
    const child = instance.process?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const instance of this.instances) this.resume(instance);
    await Promise.all(this.instances.map((i) => (i.process ? stopService(i.process, 'SIGTERM', 5000) : Promise.resolve())));
  }

  get isStopping(): boolean {
    return this.stopping;
  }
}
