import * as fs from 'node:fs';
import { managed, runningPid } from '../../tools/stack/processes';
import { loadStackConfig } from '../../tools/stack/stack.config';

const clockTicks = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return 0;
  }
}

/** Resident memory of a process in MB; 0 once it is gone. */
export function rssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

/** Every PostgreSQL process on the machine: the server's backends come and go, so they are summed. */
export function postgresPids(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The pid of a process the local stack started (kafka, registry, zipkin), when it runs. */
export function stackPid(name: string): number | undefined {
  const config = loadStackConfig();
  return runningPid(managed(config.runDir, config.logsDir, name));
}

export type Processes = Record<string, () => number[]>;

/**
 * CPU used by each named group of processes between `start` and `stop`, and the peak RSS of each
 * group sampled every 250 ms meanwhile. PostgreSQL's backends that ended during the window are not
 * counted: the platform's pools keep theirs open.
 */
export class CostMeter {
  private readonly before = new Map<string, Map<number, number>>();
  private readonly peakRss = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly processes: Processes) {}

  start(): void {
    for (const [name, pids] of Object.entries(this.processes)) this.before.set(name, new Map(pids().map((pid) => [pid, cpuSeconds(pid)])));
    this.timer = setInterval(() => this.sampleRss(), 250);
  }

  stop(): { cpuSeconds: Record<string, number>; peakRssMb: Record<string, number> } {
    clearInterval(this.timer);
    this.sampleRss();
    const cpu: Record<string, number> = {};
    for (const [name, pids] of Object.entries(this.processes)) {
      const before = this.before.get(name)!;
      cpu[name] = pids().reduce((sum, pid) => sum + cpuSeconds(pid) - (before.get(pid) ?? 0), 0);
    }
    return { cpuSeconds: cpu, peakRssMb: Object.fromEntries(this.peakRss) };
  }

  private sampleRss(): void {
    for (const [name, pids] of Object.entries(this.processes)) {
      const rss = pids().reduce((sum, pid) => sum + rssMb(pid), 0);
      this.peakRss.set(name, Math.max(this.peakRss.get(name) ?? 0, rss));
    }
  }
}

/** `services`' CPU and memory, and the stack's own processes' (Kafka, the registry, Zipkin, PostgreSQL). */
export function stackCostMeter(services: Processes): CostMeter {
  return new CostMeter({
    ...services,
    kafka: () => [stackPid('kafka')!].filter(Boolean),
    registry: () => [stackPid('registry')!].filter(Boolean),
    zipkin: () => [stackPid('zipkin')!].filter(Boolean),
    postgres: postgresPids,
  });
}
