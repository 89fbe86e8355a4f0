import { loadServiceConfig, serviceNames } from '@app/config';
import { AppName, RunningService, startService, stopService, waitForHealth } from './service-process';
import { localKafkaEnv, localRegistryEnv } from '@app/kafka';
import { loadStackConfig, localTracingEnv } from '../stack/stack.config';
import { formatLogLine } from './log-format';

const apps: AppName[] = ['model-simulator', ...serviceNames, 'console'];

function portOf(name: AppName): number {
  if (name === 'model-simulator') return Number(process.env.MODEL_SIMULATOR_PORT || 3010);
  if (name === 'console') return Number(process.env.CONSOLE_PORT || 3004);
  return loadServiceConfig(name).port;
}

const restartDelayMs = 1000;

/**
 * Runs the model simulator and the four services in the foreground: their output prefixed by name, a crashed service
 * restarted after a pause, and all of them stopped gracefully on Ctrl-C or SIGTERM.
 */
export class Supervisor {
  private readonly running = new Map<AppName, RunningService>();
  private stopping = false;

  constructor(
    private readonly print: (line: string) => void,
    private readonly env: NodeJS.ProcessEnv = {},
  ) {}

  async startAll(): Promise<RunningService[]> {
    const services = apps.map((name) => this.launch(name));
    await Promise.all(services.map((s) => waitForHealth(s)));
    return services;
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.running.values()].map((s) => stopService(s)));
  }

  /** Resolves when SIGINT or SIGTERM arrives and every service has stopped. */
  untilSignalled(): Promise<void> {
    return new Promise((resolve) => {
      const onSignal = (signal: NodeJS.Signals) => {
        this.print(`${signal}: stopping the services`);
        void this.stopAll().then(resolve);
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
    });
  }

  private launch(name: AppName): RunningService {
    // Each service connects to Kafka and the registry as its own principal (the local stack's credentials), unless told otherwise.
    const kafka = name === 'model-simulator' || process.env.KAFKA_USERNAME ? {} : localKafkaEnv(name);
    const registry = name === 'model-simulator' || process.env.SCHEMA_REGISTRY_USERNAME ? {} : localRegistryEnv(name);
    const credentials = { ...kafka, ...registry };
    // The stack's database address: a replicated one listens on a port of its own (stack.config.ts).
    const database = process.env.DATABASE_URL ? {} : { DATABASE_URL: loadStackConfig().databaseUrl };
    const service = startService(name, portOf(name), { ...credentials, ...database, ...localTracingEnv(), ...this.env }, (line) =>
      this.print(`[${name.padEnd(15)}] ${formatLogLine(line)}`),
    );
    this.running.set(name, service);
    service.child.once('exit', (code, signal) => {
      if (this.stopping) return;
      this.print(`[${name.padEnd(15)}] exited (${code ?? signal}); restarting in ${restartDelayMs} ms`);
      setTimeout(() => !this.stopping && this.launch(name), restartDelayMs);
    });
    return service;
  }
}
