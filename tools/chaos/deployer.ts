import { setTimeout as sleep } from 'node:timers/promises';
import { breakingChanges, OpenApiDocument } from '../deploy/openapi-compat';
import { headCommit } from '../deploy/release';
import { Cluster, services } from './cluster';
import type { History } from './history';

/**
 * The producers of an event before its consumers: an outbox's relay encodes what it publishes with
 * its own release's schema, and the one relay of a service moves to the head only when its last
 * instance of the release before stops. Replacing generation before tasks in each round gives the
 * head's relay a while with an older tasks instance still reading: the event read both ways.
 */
const deployOrder = [...services].reverse();

/** How long the workload runs before the first step, between two steps, and with half the instances at each release. */
export interface DeployTiming {
  beforeMs: number;
  betweenMs: number;
  mixedMs: number;
}

/**
 * A rolling deploy under the workload, as an operator runs one: every service starts at the previous
 * release (two instances each); one instance at a time is stopped with SIGTERM and started at the
 * head on its port — the first instance of every service, then, after a while with both releases
 * side by side, the second. Each step is in the history.
 */
export class Deployer {
  /** Each service's HTTP contract as an instance of the release before served it, and what the head's took away from it. */
  readonly http: { compared: string[]; breaking: string[] } = { compared: [], breaking: [] };

  constructor(
    private readonly cluster: Cluster,
    private readonly history: History,
    private readonly log: (line: string) => void,
    private readonly timing: DeployTiming,
    /** Called as both releases start to run side by side. */
    private readonly onMixed: () => void = () => undefined,
  ) {}

  async run(): Promise<void> {
    const head = headCommit();
    await sleep(this.timing.beforeMs);
    const rounds = Math.max(...services.map((service) => this.cluster.instances.filter((i) => i.app === service).length));
    for (let nth = 0; nth < rounds; nth++) {
      for (const service of deployOrder) {
        const instance = this.cluster.instances.filter((i) => i.app === service)[nth];
        if (!instance) continue;
        const from = instance.release?.commit.slice(0, 10) ?? 'head';
        this.log(`deploying ${instance.id}: ${from} → ${head.slice(0, 10)}`);
        const before = nth === 0 ? await this.openApiOf(instance.port) : undefined;
        await this.cluster.stopGracefully(instance);
        this.history.record({ kind: 'deploy', at: Date.now(), instance: instance.id, phase: 'stopped', commit: head });
        instance.release = undefined;
        await this.cluster.start(instance);
        this.history.record({ kind: 'deploy', at: Date.now(), instance: instance.id, phase: 'started', commit: head });
        if (before) {
          this.http.compared.push(service);
          const after = await this.openApiOf(instance.port);
          this.http.breaking.push(...(after ? breakingChanges(before, after) : ['the head serves no /openapi.json']).map((change) => `${service}: ${change}`));
        }
        await sleep(this.timing.betweenMs);
        if (nth === 0 && service === deployOrder[0]) this.onMixed();
      }
      if (nth < rounds - 1) await sleep(this.timing.mixedMs);
    }
    this.log('every instance runs the head');
  }

  private async openApiOf(port: number): Promise<OpenApiDocument | undefined> {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/openapi.json`, { signal: AbortSignal.timeout(10_000) });
      return response.ok ? ((await response.json()) as OpenApiDocument) : undefined;
    } catch {
      return undefined;
    }
  }
}
