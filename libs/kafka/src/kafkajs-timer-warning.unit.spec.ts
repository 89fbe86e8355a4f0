import { spawnSync } from 'node:child_process';

/**
 * kafkajs's own request queue arms its timer in a fresh Node process, with and without the filter;
 * the process's stderr says whether Node warned.
 */
function stderrOfRequestQueue(withFilter: boolean): string {
  const script = `
    ${withFilter ? "require('./kafkajs-timer-warning').dropKafkajsNegativeTimerWarning();" : ''}
    const RequestQueue = require('kafkajs/src/network/requestQueue');
    const queue = new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 1000, clientId: 'spec', broker: 'none', logger: { debug() {} } });
    queue.scheduleCheckPendingRequests();
    clearTimeout(queue.throttleCheckTimeoutId);
  `;
  const run = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { cwd: __dirname, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stderr;
}

describe("kafkajs's negative request-queue timer", () => {
  it('makes Node (23 and later) warn on its own', () => {
    expect(stderrOfRequestQueue(false)).toContain('TimeoutNegativeWarning');
  });

  it('warns no more once the filter is in place, and other warnings still print', () => {
    expect(stderrOfRequestQueue(true)).not.toContain('TimeoutNegativeWarning');
    const other = spawnSync(
      process.execPath,
      [
        '-r',
        'ts-node/register/transpile-only',
        '-e',
        "require('./kafkajs-timer-warning').dropKafkajsNegativeTimerWarning(); process.emitWarning('still here', 'OtherWarning');",
      ],
      { cwd: __dirname, encoding: 'utf8' },
    );
    expect(other.stderr).toContain('OtherWarning: still here');
  });
});
