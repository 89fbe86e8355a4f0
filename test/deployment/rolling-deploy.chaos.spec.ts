import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCampaign } from '../../tools/chaos/campaign';
import { previousReleaseCommit } from '../../tools/deploy/release';

const rootDir = path.resolve(__dirname, '..', '..');

/**
 * A rolling deploy on the real stack (the campaign's own: a broker, the registry, PostgreSQL): two
 * instances of every service at the previous release (ops/previous-release, checked out and built
 * beside the head), under the campaign's workload; one instance at a time stopped and started at
 * the head, the first of every service, then — after a while with both releases side by side, new
 * users arriving and being granted quota — the second. The checker then runs every promise.
 */
describe('a rolling deploy from the previous release to the head, under load', () => {
  it(
    'replaces every instance one at a time, breaks no promise and fails no request, and each release reads the other event',
    async () => {
      const lines: string[] = [];
      const report = await runCampaign(
        rootDir,
        { seed: 49, durationMs: 60_000, instances: 2, settleMs: 150_000, users: 6, brokers: 1, deployFrom: previousReleaseCommit() },
        (line) => lines.push(line),
      );
      const said = `${lines.join('\n')}\n${JSON.stringify(report, null, 2)}`;
      fs.writeFileSync(path.join(report.runDir, 'jest.log'), said);

      // Then every instance was replaced, one at a time
      expect(report.deploy?.steps).toBe(8);
      // And while both releases ran, accounts were made (their grants) and debited
      expect(report.deploy?.whileMixed.grants).toBeGreaterThan(0);
      expect(report.deploy?.whileMixed.debits).toBeGreaterThan(0);
      // And every promise held: one outcome, one debit, balances that match the ledger, one notification, no request a client would give up on
      const invariants = report.results.map((r) => r.invariant);
      for (const name of [
        'ONE_TERMINAL_OUTCOME',
        'USER_LEDGER_BALANCES',
        'BALANCE_WITHIN_GRANT',
        'ONE_NOTIFICATION_PER_OUTCOME',
        'CLIENT_REQUESTS_RETRYABLE',
        'HTTP_COMPATIBLE',
        'CONVERGES',
      ])
        expect(invariants).toContain(name);
      expect(report.results.filter((r) => r.violations > 0)).toEqual([]);
      expect(report.operations.accepted).toBeGreaterThan(50);
      // And GenerationSucceeded, which gained an optional field at the head, was read both ways on the live topic:
      // an old producer's by a head consumer (the field's default), a head producer's by an old consumer (ignored)
      expect(report.deploy?.crossing.oldToHead).toBeGreaterThan(0);
      expect(report.deploy?.crossing.headToOld).toBeGreaterThan(0);
    },
    20 * 60_000,
  );
});
