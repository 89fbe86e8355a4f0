import type { StackConfig } from '../stack/stack.config';
import { BrokerFaultKind, brokerFaultKinds, strikeBroker } from './broker-faults';
import type { Strike } from './strike';
import { FaultKind, replicatedDatabaseWeights, serviceFaultWeights, singleBrokerWeights } from './fault-kinds';
import { DatabaseFaultKind, strikeDatabase } from './database-faults';
import { crashPart, restartPart, setReadOnly, signalPart, StackPart } from './campaign-stack';
import { Cluster, Instance, services } from './cluster';
import type { History } from './history';
import type { Random } from './random';
import { setTimeout as sleep } from 'node:timers/promises';
import { retry } from '@app/timing';

const effectPollMs = 1000; // how often a cluster fault's effect is looked for while it lasts
type ActiveFault = { id: number; target: string; heal: () => Promise<void>; timer: NodeJS.Timeout };

/**
 * Applies a fault every 20–40 s, each lasting a few seconds to half a minute, so that faults overlap;
 * a target already under a fault is left alone. Every fault and its healing go into the history.
 * `healAll` ends every fault at once, and the campaign waits for the system to converge after it.
 */
export class Nemesis {
  private readonly active = new Map<number, ActiveFault>();
  private readonly healing = new Set<Promise<void>>();
  private readonly stillHealing = new Set<string>();
  private running = false;
  private nextId = 0;
  private wake?: () => void;
  readonly applied: Record<string, number> = {};
  private readonly faultWeights: Array<readonly [FaultKind | 'cluster', number]>;
  /** A cluster's own faults, taken in turn from a seeded start, so that a run of a few minutes tries each. */
  private readonly clusterTurns: BrokerFaultKind[];
  private clusterTurn = 0;
  /** Drawn before any other: a replicated database is failed over, then switched over, in every run. */
  private readonly firstStrikes: FaultKind[];

  constructor(
    private readonly stack: StackConfig,
    private readonly cluster: Cluster,
    private readonly history: History,
    private readonly random: Random,
    private readonly log: (line: string) => void,
    only: string[] = [],
    private readonly spacingMs: [number, number] = [20_000, 40_000],
  ) {
    const single = stack.kafka.brokers === 1;
    const databaseWeights = stack.postgres === 'replicated' ? replicatedDatabaseWeights : [];
    const known = [...serviceFaultWeights, ...singleBrokerWeights, ...databaseWeights].map(([kind]) => kind as string).concat(single ? [] : brokerFaultKinds);
    const unknown = only.filter((kind) => !known.includes(kind) || (!single && singleBrokerWeights.some(([k]) => k === kind)));
    if (unknown.length > 0) throw new Error(`no such fault here: ${unknown.join(', ')}`);
    const chosen = (kind: string) => only.length === 0 || only.includes(kind);
    const others = [...serviceFaultWeights, ...databaseWeights, ...(single ? singleBrokerWeights : [])].filter(([kind]) => chosen(kind));
    this.firstStrikes = databaseWeights.map(([kind]) => kind).filter(chosen);
    const turns = single ? [] : brokerFaultKinds.filter(chosen);
    const start = turns.length > 0 ? random.between(0, turns.length - 1) : 0;
    this.clusterTurns = [...turns.slice(start), ...turns.slice(0, start)];
    // On a cluster, half the faults are the cluster's own.
    const clusterWeight = others.reduce((sum, [, weight]) => sum + weight, 0) || 1;
    this.faultWeights = this.clusterTurns.length > 0 ? [...others, ['cluster', clusterWeight]] : others;
  }

  async run(): Promise<void> {
    this.running = true;
    while (this.running) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.random.between(...this.spacingMs));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (this.running) await this.strike().catch((error: Error) => this.log(`nemesis: ${error.message}`));
    }
  }

  async healAll(): Promise<void> {
    this.running = false;
    this.wake?.();
    for (const fault of [...this.active.values()]) {
      clearTimeout(fault.timer);
      await this.end(fault);
    }
    // Heals the timers had begun: all done before the platform is said to be healed.
    await Promise.all([...this.healing]);
  }

  /** Kills or pauses one of the service instances no other fault holds. */
  private strikeInstance(kind: 'kill-instance' | 'pause-instance', instances: Instance[]): void {
    if (instances.length === 0) return;
    const instance = this.random.pick(instances);
    const lasting = (min: number, max: number) => this.random.between(min, max) * 1000;
    if (kind === 'kill-instance') {
      this.cluster.kill(instance);
      return void this.begin(kind, instance.id, lasting(3, 8), () => this.cluster.start(instance));
    }
    this.cluster.pause(instance);
    // Long enough for its consumer group to evict it (the session times out) at times, not always.
    return void this.begin(kind, instance.id, lasting(8, 35), async () => this.cluster.resume(instance));
  }

  private async strike(): Promise<void> {
    const busy = new Set([...this.active.values()].map((f) => f.target).concat([...this.stillHealing]));
    const free = (target: string) => !busy.has(target);
    const databaseBusy = !free('postgres') || !free('registry') || busy.has('read-only');
    // A first strike waits while the database is still under (or healing from) the one before.
    const first = this.firstStrikes.length > 0 && !databaseBusy;
    const drawn = first ? this.firstStrikes.shift()! : this.random.weighted(this.faultWeights);
    const kind = drawn === 'cluster' ? this.clusterTurns[this.clusterTurn % this.clusterTurns.length] : drawn;
    const instances = this.cluster.serviceInstances.filter((i) => free(i.id));
    const lasting = (min: number, max: number) => this.random.between(min, max) * 1000;
    switch (kind) {
      case 'kill-instance':
      case 'pause-instance':
        return this.strikeInstance(kind, instances);
      case 'kill-leader':
      case 'kill-controller':
      case 'partition-broker':
      case 'two-brokers-down':
      case 'pause-broker':
        if (!free('kafka')) return;
        if (this.stack.kafka.brokers > 1) return this.strikeCluster(kind);
        return this.pauseBroker();
      case 'kill-broker':
        if (!free('kafka')) return;
        await crashPart(this.stack, 'kafka');
        return void this.begin(kind, 'kafka', lasting(5, 15), () => this.restart('kafka'));
      case 'crash-postgres':
        if (databaseBusy) return;
        await crashPart(this.stack, 'postgres');
        return void this.begin(kind, 'postgres', lasting(3, 10), () => this.restart('postgres'));
      case 'failover-postgres':
      case 'switchover-postgres':
        if (databaseBusy) return;
        // A first strike refused (a switchover while the standby is not yet synchronous) is made again later.
        return this.watched(kind, 'postgres', await strikeDatabase(kind, this.stack, this.random).catch(this.putBack(first, kind)));
      case 'blackhole-postgres':
        // Stopped, not killed: sockets stay open, nothing answers, nothing is reset — a network dropping its
        // packets. Only the services' own timeouts notice; the registry, whose store it is, stalls too.
        if (databaseBusy) return;
        signalPart(this.stack, 'postgres', 'SIGSTOP');
        return void this.begin(kind, 'postgres', lasting(20, 60), async () => void signalPart(this.stack, 'postgres', 'SIGCONT'));
      case 'read-only-database': {
        if (!free('postgres') || !free('read-only')) return;
        const service = this.random.pick(services);
        const database = `taskplatform_${service}`;
        await setReadOnly(this.stack, database, true);
        return void this.begin(kind, 'read-only', lasting(10, 25), () => setReadOnly(this.stack, database, false), database);
      }
      case 'kill-registry':
        if (!free('registry') || !free('postgres')) return;
        await crashPart(this.stack, 'registry');
        return void this.begin(kind, 'registry', lasting(5, 15), () => this.restart('registry'));
      case 'kill-model': {
        const model = this.cluster.instances.find((i) => i.app === 'model-simulator') as Instance;
        if (!free(model.id)) return;
        this.cluster.kill(model);
        return void this.begin(kind, model.id, lasting(3, 10), () => this.cluster.start(model));
      }
    }
  }

  private pauseBroker(): void {
    signalPart(this.stack, 'kafka', 'SIGSTOP');
    this.begin('pause-broker', 'kafka', this.random.between(5, 15) * 1000, async () => void signalPart(this.stack, 'kafka', 'SIGCONT'));
  }

  private putBack = (first: boolean, kind: FaultKind) => (error: unknown) => {
    if (first) this.firstStrikes.unshift(kind);
    throw error;
  };

  /** A cluster fault, all of them on the target `kafka` (one at a time), and the watch for its effect. */
  private async strikeCluster(kind: BrokerFaultKind): Promise<void> {
    const strike = await strikeBroker(kind, this.stack, this.random);
    this.clusterTurn++; // a turn passes once its fault was tried (a strike that threw is tried again)
    await this.watched(kind, 'kafka', strike);
  }

  /** A fault that a cluster (the brokers', the database's) shows to a node it spared: begun, then watched for. */
  private async watched(kind: BrokerFaultKind | DatabaseFaultKind, target: string, strike: Strike | undefined): Promise<void> {
    if (!strike) return;
    const id = this.begin(kind, target, strike.forMs, strike.heal, `${strike.target} ${strike.detail}`, strike.struckAt);
    await this.watchEffect(id, kind, strike);
  }

  /**
   * Asks for the fault's effect until it shows or the fault ends, and records what was seen: a fault
   * that ran its course unseen is recorded as such (the checker counts it); one healed early by
   * `healAll` at the end of the run is recorded as cut short.
   */
  private async watchEffect(id: number, fault: BrokerFaultKind | DatabaseFaultKind, strike: Strike): Promise<void> {
    const started = Date.now();
    let lastError = '';
    while (this.active.has(id)) {
      const seen = await strike.effect().catch((error: Error) => void (lastError = error.message.split('\n')[0]));
      if (seen) {
        this.history.record({ kind: 'effect', at: Date.now(), id, fault, seen, afterMs: Date.now() - started });
        this.log(`nemesis: ${fault} took effect after ${((Date.now() - started) / 1000).toFixed(1)} s: ${seen}`);
        return;
      }
      await sleep(effectPollMs);
    }
    const cutShort = this.running === false;
    this.history.record({ kind: 'effect', at: Date.now(), id, fault, seen: null, cutShort, lastError: lastError || undefined });
    this.log(`nemesis: ${fault} ended ${cutShort ? 'early (the run ended)' : 'without its effect being seen'}${lastError ? ` (${lastError})` : ''}`);
  }

  private begin(fault: FaultKind, target: string, forMs: number, heal: () => Promise<void>, detail?: string, at = Date.now()): number {
    const id = ++this.nextId;
    this.applied[fault] = (this.applied[fault] ?? 0) + 1;
    const shown = detail ? `${target}:${detail}` : target;
    this.history.record({ kind: 'fault', at, phase: 'start', id, fault, target: shown });
    this.log(`nemesis: ${fault} ${shown} for ${Math.round(forMs / 1000)} s`);
    const active: ActiveFault = { id, target, heal, timer: setTimeout(() => this.endLater(active), forMs) };
    active.heal = async () => {
      await heal();
      this.history.record({ kind: 'fault', at: Date.now(), phase: 'end', id, fault, target: shown });
    };
    this.active.set(id, active);
    return id;
  }

  private endLater(fault: ActiveFault): void {
    const healing = this.end(fault).catch((error: Error) => this.log(`nemesis: could not heal ${fault.target}: ${error.message}`));
    this.healing.add(healing);
    void healing.finally(() => this.healing.delete(healing));
  }

  private async end(fault: ActiveFault): Promise<void> {
    if (!this.active.delete(fault.id)) return;
    // Still busy while it heals (a node restarting): no new fault on it until it is back.
    this.stillHealing.add(fault.target);
    try {
      await this.healWithRetries(fault);
    } finally {
      this.stillHealing.delete(fault.target);
    }
  }

  private async healWithRetries(fault: ActiveFault): Promise<void> {
    const heal = (attempt: number) =>
      fault.heal().catch((error: unknown) => {
        this.log(`nemesis: healing ${fault.target} failed (attempt ${attempt}): ${(error as Error).message.split('\n')[0]}`);
        throw error;
      });
    await retry(heal, { attempts: 10, delayMs: () => 2000 });
  }

  /** A stack part started again; the registry needs PostgreSQL, which may itself be down a moment. */
  private restart = (part: StackPart): Promise<void> => restartPart(this.stack, part);
}
