import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadServiceConfig, serviceNames } from '@app/config';
import { managed, ManagedProcess, runningPid, startDetached, stopManaged, waitUntilReady } from './processes';
import { prometheusUrl, StackConfig } from './stack.config';
import { requireCommand } from './toolchain';

export const alertRulesFile = path.join(__dirname, '..', '..', 'ops', 'prometheus', 'alert-rules.yml');

export function prometheusProcess(config: StackConfig): ManagedProcess {
  return managed(config.runDir, config.logsDir, 'prometheus');
}

/** Prometheus reads its scrape targets from here: one file per platform (npm start's, each test's). */
export function prometheusTargetsDir(config: StackConfig): string {
  return path.join(config.stackDir, 'prometheus', 'targets');
}

/** Tells Prometheus to scrape these services (file service discovery: it notices the file by itself). */
export function writeScrapeTargets(config: StackConfig, name: string, services: Array<{ service: string; port: number }>): string {
  const file = path.join(prometheusTargetsDir(config), `${name}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const groups = services.map(({ service, port }) => ({ targets: [`127.0.0.1:${port}`], labels: { service, platform: name } }));
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(groups, null, 2));
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

export async function prometheusAnswers(config: StackConfig): Promise<boolean> {
  try {
    return (await fetch(`${prometheusUrl(config)}/-/ready`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

function writeConfig(config: StackConfig): string {
  const file = path.join(config.stackDir, 'prometheus', 'prometheus.yml');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const yaml = [
    '# Written by tools/stack/prometheus.ts on every start; edit ops/prometheus/ instead.',
    'global:',
    '  scrape_interval: 5s',
    '  evaluation_interval: 5s',
    'rule_files:',
    `  - ${JSON.stringify(alertRulesFile)}`,
    'scrape_configs:',
    '  - job_name: task-platform',
    '    file_sd_configs:',
    `      - files: [${JSON.stringify(path.join(prometheusTargetsDir(config), '*.json'))}]`,
    '',
  ].join('\n');
  fs.writeFileSync(file, yaml);
  return file;
}

/**
 * Prometheus from Debian's package (installed when missing), on loopback, scraping every service
 * of `npm start` (and of any test platform that adds its targets), with the repository's alert rules.
 */
export async function startPrometheus(config: StackConfig): Promise<'started' | 'already up'> {
  const proc = prometheusProcess(config);
  const existing = runningPid(proc);
  if (existing !== undefined) {
    await waitUntilReady(proc, existing, () => prometheusAnswers(config), 60_000);
    return 'already up';
  }
  const prometheus = requireCommand('prometheus', 'prometheus');
  writeScrapeTargets(
    config,
    'local',
    serviceNames.map((service) => ({ service, port: loadServiceConfig(service).port })),
  );
  const args = [
    `--config.file=${writeConfig(config)}`,
    `--storage.tsdb.path=${path.join(config.stackDir, 'data', 'prometheus')}`,
    '--storage.tsdb.retention.time=2d',
    `--web.listen-address=${config.prometheus.host}:${config.prometheus.port}`,
  ];
  const pid = startDetached(proc, prometheus, args);
  await waitUntilReady(proc, pid, () => prometheusAnswers(config), 60_000);
  return 'started';
}

export function stopPrometheus(config: StackConfig): Promise<boolean> {
  return stopManaged(prometheusProcess(config));
}
