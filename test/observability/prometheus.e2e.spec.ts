import * as fs from 'node:fs';
import { serviceNames } from '@app/config';
import { alertRulesFile, writeScrapeTargets } from '../../tools/stack/prometheus';
import { loadStackConfig, prometheusUrl } from '../../tools/stack/stack.config';
import { Platform } from '../support/platform';
import { waitFor } from '../support/wait-for';

const config = loadStackConfig();

async function query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const response = await fetch(`${prometheusUrl(config)}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
  expect(body.status).toBe('success');
  return body.data.result;
}

/** The stack's Prometheus scrapes the services it is told of, and evaluates the repository's alert rules. */
describe('Prometheus', () => {
  const platform = new Platform();
  let targets: string;
  beforeAll(async () => {
    await platform.start();
    const services = serviceNames.map((service) => ({ service, port: Number(new URL(platform.url(service)).port) }));
    targets = writeScrapeTargets(config, platform.env.topicPrefix, services);
  });
  afterAll(async () => {
    fs.rmSync(targets, { force: true });
    await platform.stop();
  });

  it('scrapes every service, and each metric the alert rules use exists', async () => {
    const platformLabel = platform.env.topicPrefix;
    await waitFor(async () => (await query(`up{platform="${platformLabel}"} == 1`)).length === 4, {
      what: 'Prometheus to scrape the four services',
      timeoutMs: 30_000,
    });
    const up = await query(`up{platform="${platformLabel}"}`);
    expect(up.map((r) => r.metric.service).sort()).toEqual([...serviceNames].sort());

    // Every metric an alert rule reads is one the services expose (a typo would make an alert that never fires).
    const exprs = [...fs.readFileSync(alertRulesFile, 'utf8').matchAll(/^\s*expr: (.*)$/gm)].map((m) => m[1]);
    const metrics = [...new Set(exprs.flatMap((expr) => expr.match(/\b[a-z]+(?:_[a-z]+)+\b(?!\s*=)/g) ?? []))];
    const exposed = await Promise.all(serviceNames.map(async (s) => (await fetch(`${platform.url(s)}/metrics`)).text()));
    expect(metrics).toEqual(expect.arrayContaining(['outbox_oldest_age_seconds', 'dlq_messages_total', 'consumer_lag', 'tasks_past_deadline']));
    for (const name of metrics) expect(exposed.some((text) => text.includes(`# TYPE ${name} `)) ? name : `${name} is not exposed`).toBe(name);
    const stored = (await query(`outbox_oldest_age_seconds{platform="${platformLabel}"}`)).map((r) => r.metric.service);
    expect(stored.sort()).toEqual([...serviceNames].sort());
  });

  it('has loaded the alert rules and evaluates them', async () => {
    const body = (await (await fetch(`${prometheusUrl(config)}/api/v1/rules?type=alert`)).json()) as {
      data: { groups: Array<{ name: string; rules: Array<{ name: string; health: string }> }> };
    };
    const group = body.data.groups.find((g) => g.name === 'task-platform');
    // Exactly the rules the file declares, read from it so that a new rule cannot be forgotten here.
    const declared = [...fs.readFileSync(alertRulesFile, 'utf8').matchAll(/^\s*- alert: (\w+)$/gm)].map((m) => m[1]).sort();
    expect(declared).toEqual(expect.arrayContaining(['ConsumerLagHigh', 'ConsumerStalled', 'DeadLettersGrowing', 'OutboxNotDraining', 'ServiceDown']));
    expect(group?.rules.map((r) => r.name).sort()).toEqual(declared);
    await waitFor(
      async () => {
        const again = (await (await fetch(`${prometheusUrl(config)}/api/v1/rules?type=alert`)).json()) as typeof body;
        return again.data.groups.find((g) => g.name === 'task-platform')!.rules.every((r) => r.health === 'ok');
      },
      { what: 'every rule to be evaluated without error', timeoutMs: 20_000 },
    );
  });
});
