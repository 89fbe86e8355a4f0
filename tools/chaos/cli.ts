import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { parseDuration } from '@app/timing';
import { exitCodeOf } from '../cli/arguments';
import { isCommitId, previousReleaseCommit } from '../deploy/release';
import { CampaignReport, checkSavedRun, runCampaign } from './campaign';
import { loadEvidence } from './evidence';
import { readHistory } from './history';

const rootDir = path.resolve(__dirname, '..', '..');

const duration = (value: string) => {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};
/** A number, or `commit`: the first 32 bits of the checked-out commit, so that CI varies the seed with every change. */
const seed = (value: string) => {
  if (value === 'commit') return Number.parseInt(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: rootDir, encoding: 'utf8' }).slice(0, 8), 16);
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`"${value}" is not a seed (a whole number, or "commit")`);
  return n >>> 0;
};
const brokers = (value: string): 1 | 3 => {
  if (value !== '1' && value !== '3') throw new InvalidArgumentError(`"${value}" brokers: a campaign runs on 1 or 3`);
  return Number(value) as 1 | 3;
};
const postgres = (value: string): 'single' | 'replicated' => {
  if (value !== 'single' && value !== 'replicated') throw new InvalidArgumentError(`"${value}": the database is single or replicated`);
  return value;
};
/** `previous`, or a full commit id: a ref or an abbreviation is refused rather than handed to git. */
const deployFrom = (value: string) => {
  if (value === 'previous') return previousReleaseCommit();
  if (!isCommitId(value)) throw new InvalidArgumentError(`"${value}" is not "previous" or a commit id (40 hex digits)`);
  return value;
};
const positive = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a positive whole number`);
  return n;
};

/**
 * `npm run chaos -- --seed <n> --duration <d> [--instances 2] [--settle 120s] [--json]`: a seeded
 * fault campaign and its checker; `--check <run folder>` runs the checker alone on a saved run.
 * Exits 0 only when no invariant was violated.
 */
const program = new Command('chaos')
  .option('--seed <n>', 'the seed of the workload and the fault schedule, or "commit"', seed, 1)
  .option('--duration <d>', 'how long the workload and the faults run', duration, 180_000)
  .option('--instances <n>', 'instances of every service', positive, 2)
  .option('--settle <d>', 'how long the platform may take to converge once the faults are healed', duration, 120_000)
  .option('--users <n>', 'how many users submit', positive, 6)
  .option('--brokers <n>', 'one broker, or a replicated cluster of 3 with its own faults', brokers, 1)
  .option('--postgres <layout>', 'one server, or a primary and a synchronous standby under Patroni with failovers among the faults', postgres, 'single')
  .option('--faults <kinds>', 'only these faults, comma-separated (e.g. partition-broker,kill-controller)', (v: string) => v.split(',').filter(Boolean))
  .option(
    '--deploy-from <commit>',
    'a rolling deploy instead of faults: start at this commit ("previous": ops/previous-release), replace with the head',
    deployFrom,
  )
  .option('--check <dir>', 'check a saved run instead of running one')
  .option('--json', 'print the report as JSON')
  .exitOverride();

async function main(): Promise<number> {
  program.parse();
  const options = program.opts<{
    seed: number;
    duration: number;
    instances: number;
    settle: number;
    users: number;
    brokers: 1 | 3;
    postgres: 'single' | 'replicated';
    faults?: string[];
    deployFrom?: string;
    check?: string;
    json?: boolean;
  }>();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const report = options.check
    ? checkSavedRun(path.resolve(options.check), loadEvidence(path.resolve(options.check), readHistory(path.resolve(options.check))))
    : await runCampaign(
        rootDir,
        {
          seed: options.seed,
          durationMs: options.duration,
          instances: options.instances,
          settleMs: options.settle,
          users: options.users,
          faults: options.faults,
          brokers: options.brokers,
          postgres: options.postgres,
          deployFrom: options.deployFrom,
        },
        log,
      );
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : table(report));
  return report.results.every((r) => r.violations === 0) ? 0 : 1;
}

function table(report: CampaignReport): string {
  const lines = [
    `seed ${report.seed}, ${report.durationMs / 1000} s, ${report.brokers} broker${report.brokers === 1 ? '' : 's'}, ${report.postgres ?? 'single'} PostgreSQL, ${report.instances} instances of every service — ${report.runDir}`,
    `operations: ${report.operations.submits} POST /tasks (${report.operations.accepted} accepted), ${report.operations.published} outside requests, ${report.operations.deliveries} webhook deliveries`,
    `faults: ${
      Object.entries(report.faults)
        .map(([fault, n]) => `${fault} ×${n}`)
        .join(', ') || 'none'
    }`,
    ...(report.deploy
      ? [
          `rolling deploy from ${report.deploy.from.slice(0, 10)}: ${report.deploy.steps} instances replaced; GenerationSucceeded written → read ${JSON.stringify(report.deploy.crossing)}`,
        ]
      : []),
    `convergence after healing: ${report.convergenceMs === null ? 'none within --settle' : `${(report.convergenceMs / 1000).toFixed(1)} s`}`,
    '',
    `${'invariant'.padEnd(32)} violations`,
    ...report.results.flatMap((r) => [`${r.invariant.padEnd(32)} ${String(r.violations).padStart(10)}`, ...r.examples.map((e) => `    ${e}`)]),
  ];
  return `${lines.join('\n')}\n`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const code = exitCodeOf(error);
    if (code !== 0 && !(error as { code?: string }).code?.startsWith('commander.')) process.stderr.write(`chaos: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(code);
  },
);
