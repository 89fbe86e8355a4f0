/**
 * `npm run spec [-- --samples N --steps N --seed N]`: the model simulated at length (every promise
 * checked in every state), each deliberate bug found, and traces replayed against the code.
 * Simulation samples random runs: it does not explore every interleaving.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { readTrace } from './replay/itf';
import { Coverage, replayTrace, World } from './replay/replay';
import { codeRules } from './replay/rules';
import { sampleTraces, simulate, variants } from './quint';

const { values } = parseArgs({
  options: { samples: { type: 'string', default: '5000' }, steps: { type: 'string', default: '50' }, seed: { type: 'string', default: '1' } },
});
const [samples, steps, seed] = [values.samples, values.steps, values.seed].map(Number);

let failed = false;
for (const variant of variants) {
  const run = simulate({ variant, samples: variant === 'correct' ? samples : 5000, steps, seed });
  const expected = variant === 'correct' ? !run.violated : run.violated;
  failed ||= !expected;
  const what = run.violated ? 'a promise broken' : `no violation in ${samples} runs of ${steps} steps`;
  console.log(`${expected ? 'ok  ' : 'FAIL'} ${variant.padEnd(20)} ${what} (${(run.ms / 1000).toFixed(1)} s)`);
  if (!expected) console.log(run.output);
}

const traces = sampleTraces(Math.min(samples, 1000), steps, seed);
const coverage: Coverage = { permanentAnswer: 0, cancelAfterOutcome: 0, failureAfterRefund: 0, steps: 0 };
const disagreements = traces.files.flatMap((file) => replayTrace(readTrace<World>(file), codeRules, coverage));
fs.rmSync(traces.dir, { recursive: true, force: true });
failed ||= disagreements.length > 0;
console.log(
  `${disagreements.length === 0 ? 'ok  ' : 'FAIL'} replay              ${traces.files.length} traces, ${coverage.steps} steps against the code: ${disagreements.length} disagreement(s)`,
);
console.log(
  `     met: ${coverage.permanentAnswer} permanent answers, ${coverage.cancelAfterOutcome} cancels after an outcome, ${coverage.failureAfterRefund} failures after a refund`,
);
for (const d of disagreements.slice(0, 10)) console.log(JSON.stringify(d));
process.exitCode = failed ? 1 : 0;
