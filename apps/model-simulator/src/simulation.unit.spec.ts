import { answerFor, simulationOf } from './simulation';

const request = (input: unknown) => ({
  messages: [
    { role: 'system', content: 'x' },
    { role: 'user', content: JSON.stringify({ reportType: 'summary', input }) },
  ],
});

describe('the model simulator', () => {
  it('reads input.simulate from the task in the user message', () => {
    expect(simulationOf(request({ simulate: { transientFailures: 2 } }))).toEqual({ transientFailures: 2 });
    expect(simulationOf(request({ text: 'no simulation' }))).toEqual({});
    expect(simulationOf({ messages: [{ role: 'user', content: 'not json' }] })).toEqual({});
  });

  it('fails the first n calls of a task transiently, then answers', () => {
    const answers = [1, 2, 3].map((call) => answerFor({ transientFailures: 2 }, call).kind);
    expect(answers).toEqual(['transient', 'transient', 'report']);
  });

  it('fails permanently, hangs, or answers late as asked', () => {
    expect(answerFor({ permanentFailure: true }, 1)).toEqual({ kind: 'permanent' });
    expect(answerFor({ hang: true }, 5)).toEqual({ kind: 'hang' });
    expect(answerFor({ latencyMs: 250 }, 1)).toEqual({ kind: 'report', delayMs: 250 });
    expect(answerFor({ stallBody: true }, 1)).toEqual({ kind: 'stall' });
    expect(answerFor({ oversizedBytes: 5000 }, 1)).toEqual({ kind: 'oversized', bytes: 5000 });
  });
});
