import * as fs from 'node:fs';
import { readTrace } from './replay/itf';
import { Coverage, replayTrace, World } from './replay/replay';
import { codeRules, Rules } from './replay/rules';
import { sampleTraces, simulate, Variant } from './quint';

// `npm test`'s short version; `npm run spec` samples more (spec/simulate.ts).
const seed = 20261206;

describe('the choreography as a Quint model (spec/choreography.qnt), simulated', () => {
  it('keeps every promise in every state of 300 random runs of 40 steps', () => {
    const run = simulate({ variant: 'correct', samples: 300, steps: 40, seed });
    expect(run.output).toContain('[ok] No violation found');
    expect(run.violated).toBe(false);
  });

  it.each<[Variant, string]>([
    ['noInboxOnRefund', 'quota handles a GenerationFailed again each time it is delivered'],
    ['retryPermanent', 'generation retries a permanent failure'],
    ['cancelAfterOutcome', 'tasks accepts a cancel after the outcome'],
  ])('bites: with the bug %s (%s) the simulation finds a run that breaks a promise', (variant) => {
    const run = simulate({ variant, samples: 2000, steps: 40, seed });
    expect(run.output).toContain('[violation] Found an issue');
    expect(run.violated).toBe(true);
  });
});

describe("the model's traces replayed against the code's decision functions", () => {
  let traces: Array<ReturnType<typeof readTrace<World>>>;
  let dir: string;
  beforeAll(() => {
    const sampled = sampleTraces(150, 40, seed);
    dir = sampled.dir;
    traces = sampled.files.map((file) => readTrace<World>(file));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const replayAll = (rules: Rules) => {
    const coverage: Coverage = { permanentAnswer: 0, cancelAfterOutcome: 0, failureAfterRefund: 0, steps: 0 };
    const disagreements = traces.flatMap((trace, i) => replayTrace(trace, rules, coverage).map((d) => ({ trace: i, ...d })));
    return { coverage, disagreements };
  };

  it('decides at every step what the model decides, over runs that meet each situation the mutants change', () => {
    expect(traces).toHaveLength(150);
    const { coverage, disagreements } = replayAll(codeRules);
    expect(disagreements).toEqual([]);
    expect(coverage.steps).toBeGreaterThan(1000);
    expect(coverage.permanentAnswer).toBeGreaterThan(0);
    expect(coverage.cancelAfterOutcome).toBeGreaterThan(0);
    expect(coverage.failureAfterRefund).toBeGreaterThan(0);
  });

  it.each<[string, Partial<Rules>]>([
    [
      'a refund that forgets the refund before it',
      { onGenerationFailed: (task, balance) => codeRules.onGenerationFailed({ ...task, refunded: false }, balance) },
    ],
    [
      'a permanent failure retried',
      { decideAfterAttempt: (outcome, ...rest) => codeRules.decideAfterAttempt(outcome.ok ? outcome : { ...outcome, retriable: true }, ...rest) },
    ],
    ['a cancel accepted after the outcome', { decideCancel: () => 'cancel' }],
  ])('catches the mutant: %s', (_, mutant) => {
    const { disagreements } = replayAll({ ...codeRules, ...mutant });
    expect(disagreements.length).toBeGreaterThan(0);
  });
});
