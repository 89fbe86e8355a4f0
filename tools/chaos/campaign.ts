import * as fs from 'node:fs';
import * as path from 'node:path';
import { createKafka, localKafkaCredentials, localRegistryCredentials } from '@app/kafka';
import { prepareRelease } from '../deploy/release';
import { registerReleaseSchemas } from '../deploy/release-schemas';
import { kafkaBootstrap, registryUrl, StackConfig } from '../stack/stack.config';
import { campaignStackConfig, freshCampaignStack, stopCampaignStack } from './campaign-stack';
import { Cluster } from './cluster';
import { Deployer } from './deployer';
import { checkDeploy, DeployReport } from './deploy-evidence';
import { gatherEvidence, saveEvidence } from './evidence';
import { History, readHistory } from './history';
import { checkInvariants, InvariantResult } from './invariants';
import { Nemesis } from './nemesis';
import { removeAndAddBack } from './partner-lifecycle';
import { Random } from './random';
import { pendingWork } from './settle';
import { WebhookReceiver } from './webhook-receiver';
import { Workload } from './workload';
import { setTimeout as sleep } from 'node:timers/promises';

export interface CampaignOptions {
  seed: number;
  durationMs: number;
  instances: number;
  settleMs: number;
  users: number;
  /** One broker, or a replicated cluster of three with the cluster's own faults. */
  brokers: 1 | 3;
  /** One PostgreSQL server, or a primary and a synchronous standby under Patroni, with failovers among the faults. */
  postgres?: 'single' | 'replicated';
  /** Only these faults (all of them when empty). */
  faults?: string[];
  /**
   * A rolling deploy instead of faults: the services start at this commit (built beside the head)
   * and are replaced by the head's one instance at a time, while users who join meanwhile are granted quota.
   */
  deployFrom?: string;
}

export interface CampaignReport {
  seed: number;
  brokers: number;
  postgres?: 'single' | 'replicated';
  runDir: string;
  durationMs: number;
  instances: number;
  operations: { submits: number; accepted: number; published: number; deliveries: number };
  faults: Record<string, number>;
  convergenceMs: number | null;
  results: InvariantResult[];
  /** A rolling deploy's: its steps, and how the changed event crossed the releases. */
  deploy?: DeployReport;
}

/**
 * Each user's quota: a little less than the workload uses (about 0.45 units a second per user, net of
 * refunds, in a ten-minute run), so that generation, its retries and refunds run for most of the
 * campaign and a busy user still runs out towards the end and is refused.
 */
const grantedFor = (durationMs: number) => Math.max(25, Math.round((durationMs / 1000) * 0.4));

/** A deploy's pace: the workload alone first, then a step every few seconds, with both releases side by side for a while. */
const deployTiming = { beforeMs: 20_000, betweenMs: 5_000, mixedMs: 30_000 };

/**
 * One campaign: a fresh stack of its own, every service twice (by default), the workload and the
 * nemesis for `durationMs`, every fault healed, then up to `settleMs` for the platform to converge,
 * and the checker over everything that happened. The history and the evidence stay in the run's folder.
 */
export async function runCampaign(rootDir: string, options: CampaignOptions, log: (line: string) => void): Promise<CampaignReport> {
  const runDir = path.join(rootDir, 'chaos', 'runs', String(options.seed));
  fs.rmSync(runDir, { recursive: true, force: true });
  fs.mkdirSync(runDir, { recursive: true });
  const serviceLog = fs.createWriteStream(path.join(runDir, 'services.log'));
  const stack = campaignStackConfig(rootDir, options.brokers, options.postgres);
  const history = new History(runDir);
  const random = new Random(options.seed);
  log(
    `campaign ${options.seed} on ${options.brokers === 1 ? 'one broker' : `${options.brokers} brokers`} and ${options.postgres ?? 'single'} PostgreSQL: stack in ${stack.stackDir}, history in ${history.file}`,
  );
  const release = options.deployFrom ? prepareRelease(options.deployFrom, (line) => log(`  ${line}`)) : undefined;
  await freshCampaignStack(stack, (line) => log(`  ${line}`));
  if (release) await registerReleaseSchemas(release, registryUrl(stack), localRegistryCredentials('admin', stack.stackDir));

  const granted = grantedFor(options.durationMs);
  const cluster = new Cluster(stack, options.instances, granted, (line) => serviceLog.write(`${line}\n`), release);
  const receiver = new WebhookReceiver(history, new Random(options.seed ^ 0x5eed));
  const nemesis = new Nemesis(stack, cluster, history, new Random(options.seed ^ 0xfa17), log, options.faults);
  const workload = new Workload(stack, cluster, history, random, receiver, options.users, release && { lateUsers: options.users });
  const deployer = release && new Deployer(cluster, history, log, deployTiming, () => workload.admitLateUsers());
  const admin = adminKafka(stack);
  const adminClient = admin.admin();
  try {
    await receiver.start();
    await cluster.startAll();
    await workload.prepare();
    await adminClient.connect();
    history.record({ kind: 'phase', at: Date.now(), phase: 'started', detail: { ...options } });
    log(`running the workload and ${deployer ? 'a rolling deploy' : 'the nemesis'} for ${options.durationMs / 1000} s`);
    const working = Promise.all([workload.run(), deployer ? undefined : nemesis.run()]);
    // A release before removed partners' rows parked apart would hold every user's outcomes back: not during a deploy
    const lifecycle = deployer ? undefined : removeAndAddBack(stack, history, workload.outside, options.durationMs, log);
    await Promise.all([sleep(options.durationMs), deployer?.run(), lifecycle]);
    await nemesis.healAll();
    await workload.stop();
    await working;
    const healedAt = Date.now();
    history.record({ kind: 'phase', at: healedAt, phase: 'healed' });
    log('every fault healed; waiting for the platform to converge');
    const convergenceMs = await settle(stack, adminClient, healedAt, options.settleMs, log);
    history.record({ kind: 'phase', at: Date.now(), phase: convergenceMs === null ? 'settle-timeout' : 'settled', detail: { convergenceMs } });
    history.close();
    const entries = readHistory(runDir);
    const evidence = await gatherEvidence(stack, admin, { quota: cluster.url('quota'), tasks: cluster.url('tasks') }, entries, workload.users, granted, {
      deploying: deployer !== undefined,
    });
    saveEvidence(runDir, evidence);
    const report = reportOf(options, runDir, entries, checkInvariants(evidence), nemesis.applied, convergenceMs);
    if (release && deployer) Object.assign(report, await checkDeploy(stack, release.commit, deployer.http, entries, evidence.events, report.results));
    fs.writeFileSync(path.join(runDir, 'report.json'), JSON.stringify(report, null, 2));
    return report;
  } finally {
    await adminClient.disconnect().catch(() => undefined);
    await cluster.stopAll().catch(() => undefined);
    await receiver.stop();
    await stopCampaignStack(stack).catch(() => undefined);
    serviceLog.end();
  }
}

/** The checker alone, on a saved run. */
export function checkSavedRun(runDir: string, evidence: Parameters<typeof checkInvariants>[0]): CampaignReport {
  const started = evidence.history.find((h) => h.kind === 'phase' && h.phase === 'started') as { detail?: CampaignOptions } | undefined;
  const options: CampaignOptions = started?.detail ?? { seed: 0, durationMs: 0, instances: 0, settleMs: 0, users: 0, brokers: 1 };
  const settled = evidence.history.find((h) => h.kind === 'phase' && h.phase === 'settled') as { detail?: { convergenceMs: number } } | undefined;
  const faults: Record<string, number> = {};
  for (const h of evidence.history) if (h.kind === 'fault' && h.phase === 'start') faults[h.fault] = (faults[h.fault] ?? 0) + 1;
  return reportOf(options, runDir, evidence.history, checkInvariants(evidence), faults, settled?.detail?.convergenceMs ?? null);
}

async function settle(
  stack: StackConfig,
  admin: ReturnType<ReturnType<typeof createKafka>['admin']>,
  healedAt: number,
  settleMs: number,
  log: (line: string) => void,
) {
  let last = '';
  while (Date.now() - healedAt < settleMs) {
    const pending = await pendingWork(stack, admin).catch((error: Error) => [`not answering: ${error.message}`]);
    if (pending.length === 0) return Date.now() - healedAt;
    const said = pending.join('; ');
    if (said !== last) log(`  still converging: ${said}`);
    last = said;
    await sleep(2000);
  }
  return null;
}

function reportOf(
  options: CampaignOptions,
  runDir: string,
  entries: ReturnType<typeof readHistory>,
  results: InvariantResult[],
  faults: Record<string, number>,
  convergenceMs: number | null,
): CampaignReport {
  const submits = entries.filter((h) => h.kind === 'submit');
  return {
    seed: options.seed,
    brokers: options.brokers,
    postgres: options.postgres ?? 'single',
    runDir,
    durationMs: options.durationMs,
    instances: options.instances,
    operations: {
      submits: submits.length,
      accepted: submits.filter((s) => s.kind === 'submit' && s.status >= 200 && s.status < 300).length,
      published: entries.filter((h) => h.kind === 'publish' && h.acknowledged).length,
      deliveries: entries.filter((h) => h.kind === 'delivery').length,
    },
    faults,
    convergenceMs,
    results: [
      ...results,
      {
        invariant: 'CONVERGES',
        meaning: 'the platform converges within --settle once every fault is healed',
        violations: convergenceMs === null ? 1 : 0,
        examples: convergenceMs === null ? ['did not converge'] : [],
      },
    ],
  };
}

function adminKafka(stack: StackConfig) {
  const admin = localKafkaCredentials('admin', stack.stackDir);
  return createKafka('chaos-checker', kafkaBootstrap(stack), { sasl: admin ? { mechanism: 'scram-sha-512', ...admin } : undefined, ssl: undefined });
}
