import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { alertRulesFile } from '../../tools/stack/prometheus';

const promtool = (...args: string[]) => spawnSync('promtool', args, { encoding: 'utf8', cwd: path.dirname(alertRulesFile) });

/** The alert rules as Prometheus's own tool reads them (installed with Prometheus by stack:up). */
describe('alert rules', () => {
  it('are valid rules for Prometheus', () => {
    const check = promtool('check', 'rules', alertRulesFile);
    expect(check.stdout + check.stderr).toContain('SUCCESS: 7 rules found');
    expect(check.status).toBe(0);
  });

  it('fire when they should and not before (promtool test rules: service down, outbox, dead letters, lag, a stalled consumer, deadlines)', () => {
    const test = promtool('test', 'rules', 'alert-rules.test.yml');
    expect(test.stdout + test.stderr).toContain('SUCCESS');
    expect(test.status).toBe(0);
  });
});
