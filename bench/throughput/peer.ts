import { execFileSync, spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createKnex, dropDatabase, ensureDatabase } from '@app/database';
import { percentile } from '../bench-support';
import { freePort } from '@test/unique';
import { waitFor } from '@test/wait-for';
import { CostMeter, postgresPids } from './process-cost';
import { setTimeout as sleep } from 'node:timers/promises';

const peerDir = path.join(__dirname, '..', 'peers', 'dbos');

export interface PeerSettings {
  serverUrl: string;
  suffix: string;
  modelUrl: string;
  users: string[];
  inFlight: number;
  tasks: number;
}

export interface PeerFigures {
  tasksPerSecond: number;
  halfLoad: { tasksPerSecond: number; postToCompletedMs: { p50: number; p99: number } };
  cpuMsPerTask: { peer: number; postgres: number };
  peakRssMb: number;
  outcomes: Record<string, number>;
}

/** The peer's own dependencies (its package.json and lock), installed beside it once. */
function ensureInstalled(): void {
  if (fs.existsSync(path.join(peerDir, 'node_modules', '@dbos-inc', 'dbos-sdk'))) return;
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: peerDir, stdio: 'inherit' });
}

/**
 * The DBOS peer (bench/peers/dbos) on the same PostgreSQL server and model simulator, driven like the
 * platform: the same tasks from the same users at the same concurrency, then at `halfLoadRate`.
 */
export class Peer {
  private child?: ChildProcess;
  private runs = 0;
  private url = '';
  private readonly databaseUrl: string;

  constructor(private readonly settings: PeerSettings) {
    const url = new URL(settings.serverUrl);
    url.pathname = `/bench_peer_${settings.suffix}`;
    this.databaseUrl = url.toString();
  }

  async start(): Promise<this> {
    ensureInstalled();
    await dropDatabase(this.databaseUrl);
    await ensureDatabase(this.databaseUrl);
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    // Node runs the peer's TypeScript itself (type stripping): no build of the peer's own.
    this.child = spawn(process.execPath, [path.join(peerDir, 'peer.ts')], {
      cwd: peerDir,
      env: { ...process.env, PEER_DATABASE_URL: this.databaseUrl, PEER_PORT: String(port), MODEL_BASE_URL: this.settings.modelUrl, DEFAULT_QUOTA: '1000000' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    await waitFor(async () => (await fetch(`${this.url}/health`)).ok, { timeoutMs: 60_000, what: 'the DBOS peer to answer' });
    return this;
  }

  async stop(): Promise<void> {
    if (this.child && this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child!.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    await dropDatabase(this.databaseUrl);
  }

  /** Saturation, then `seconds` of load at `halfLoadRate`; its task outcomes so far are counted, every run's. */
  async measure(halfLoadRate: number, seconds: number): Promise<PeerFigures> {
    this.runs++;
    // The first run warms up as ours does, with a whole saturation not counted.
    await this.waitDone(await this.submit(this.runs === 1 ? this.settings.tasks : 50, `warm-up-${this.runs}`));
    const meter = new CostMeter({ peer: () => [this.child!.pid!], postgres: postgresPids });
    meter.start();
    const started = Date.now();
    const saturated = await this.submit(this.settings.tasks, `clean-${this.runs}`);
    const last = await this.waitDone(saturated);
    const cost = meter.stop();
    const tasksPerSecond = this.settings.tasks / ((last - started) / 1000);

    const load = await this.submit(Math.round(halfLoadRate * seconds), `steady-${this.runs}`, 1000 / halfLoadRate);
    await this.waitDone(load);
    const latencies = await this.latencies(load);
    return {
      tasksPerSecond,
      halfLoad: { tasksPerSecond: halfLoadRate, postToCompletedMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) } },
      cpuMsPerTask: { peer: (cost.cpuSeconds.peer * 1000) / this.settings.tasks, postgres: (cost.cpuSeconds.postgres * 1000) / this.settings.tasks },
      peakRssMb: cost.peakRssMb.peer,
      outcomes: await this.outcomes(),
    };
  }

  /** POSTs `count` tasks, `inFlight` at a time or one every `intervalMs`; the ids and when each was posted. */
  private async submit(count: number, label: string, intervalMs = 0): Promise<Map<string, number>> {
    const postedAt = new Map<string, number>();
    const one = async (i: number) => {
      const at = Date.now();
      const userId = this.settings.users[i % this.settings.users.length];
      const response = await fetch(`${this.url}/tasks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userId, key: `${label}-${i}`, input: { label, i } }),
      });
      if (response.status !== 202) throw new Error(`the peer's POST /tasks answered ${response.status}: ${await response.text()}`);
      postedAt.set(((await response.json()) as { taskId: string }).taskId, at);
    };
    if (intervalMs > 0) {
      const pending: Promise<void>[] = [];
      for (let i = 0; i < count; i++) {
        pending.push(one(i));
        await sleep(intervalMs);
      }
      await Promise.all(pending);
    } else {
      let next = 0;
      const worker = async () => {
        while (next < count) await one(next++);
      };
      await Promise.all(Array.from({ length: this.settings.inFlight }, worker));
    }
    return postedAt;
  }

  /** Waits until every task of `posted` has its outcome; the latest completion time. */
  private async waitDone(posted: Map<string, number>): Promise<number> {
    const db = createKnex(this.databaseUrl, 1);
    try {
      return await waitFor(
        async () => {
          const [row] = (
            await db.raw('select count(*)::int as done, max(completed_at)::bigint as last from peer_tasks where task_id = any(?)', [[...posted.keys()]])
          ).rows;
          return row.done === posted.size && Number(row.last);
        },
        { timeoutMs: 600_000, intervalMs: 100, what: `the peer's ${posted.size} tasks to finish` },
      );
    } finally {
      await db.destroy();
    }
  }

  private async latencies(posted: Map<string, number>): Promise<number[]> {
    const db = createKnex(this.databaseUrl, 1);
    try {
      const rows = (await db.raw('select task_id, completed_at::bigint as completed_at from peer_tasks where task_id = any(?)', [[...posted.keys()]]))
        .rows as Array<{ task_id: string; completed_at: string }>;
      return rows.map((row) => Number(row.completed_at) - posted.get(row.task_id)!).sort((a, b) => a - b);
    } finally {
      await db.destroy();
    }
  }

  private async outcomes(): Promise<Record<string, number>> {
    const db = createKnex(this.databaseUrl, 1);
    try {
      const rows = (await db.raw('select state, count(*)::int as n from peer_tasks group by state')).rows as Array<{ state: string; n: number }>;
      return Object.fromEntries(rows.map((row) => [row.state, row.n]));
    } finally {
      await db.destroy();
    }
  }
}
