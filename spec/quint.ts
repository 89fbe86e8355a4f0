import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const modelFile = path.join(__dirname, 'choreography.qnt');

/** The model's variants: the platform as it is, and each deliberate bug the simulation must find. */
export const variants = ['correct', 'noInboxOnRefund', 'retryPermanent', 'cancelAfterOutcome'] as const;
export type Variant = (typeof variants)[number];

export interface Simulation {
  variant: Variant;
  samples: number;
  steps: number;
  seed: number;
  /** ITF traces are written here when given (one file per trace). */
  traces?: { dir: string; count: number };
}

export interface SimulationResult {
  violated: boolean;
  output: string;
  ms: number;
}

/**
 * Quint's simulator with its TypeScript backend, which ships in the package: its default evaluator,
 * Apalache and TLC are downloaded at first use from hosts this machine cannot reach. Simulation
 * samples random runs; it does not explore every interleaving. Checks every promise at every state.
 */
export function simulate({ variant, samples, steps, seed, traces }: Simulation): SimulationResult {
  const cli = require.resolve('@informalsystems/quint/dist/src/cli.js');
  const args = [cli, 'run', '--backend', 'typescript', '--main', variant, '--invariant', 'promises'];
  args.push('--max-samples', String(samples), '--max-steps', String(steps), '--seed', String(seed), '--verbosity', '1');
  if (traces) args.push('--mbt', '--n-traces', String(traces.count), '--out-itf', path.join(traces.dir, 'trace_{seq}.itf.json'));
  const started = Date.now();
  const run = spawnSync(process.execPath, [...args, modelFile], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = `${run.stdout}${run.stderr}`;
  if (run.status !== 0 && !/Invariant violated/.test(output)) throw new Error(`quint run failed (${run.status}):\n${output}`);
  return { violated: run.status !== 0, output, ms: Date.now() - started };
}

/** Traces of the correct model, as ITF, in a folder of their own (the caller removes it). */
export function sampleTraces(count: number, steps: number, seed: number): { dir: string; files: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'choreography-itf-'));
  const result = simulate({ variant: 'correct', samples: count, steps, seed, traces: { dir, count } });
  if (result.violated) throw new Error(`the model itself broke a promise:\n${result.output}`);
  return {
    dir,
    files: fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.itf.json'))
      .map((f) => path.join(dir, f)),
  };
}
