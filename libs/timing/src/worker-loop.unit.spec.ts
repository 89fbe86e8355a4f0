import { WorkerLoop } from './worker-loop';

const quiet = { warn: () => undefined };
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('WorkerLoop', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  it('runs again at once while there is more work, then waits for the poll interval', async () => {
    const work = [true, true, false, false];
    const round = jest.fn(async () => work.shift() ?? false);
    const loop = new WorkerLoop(round, { name: 'test', logger: quiet, pollIntervalMs: 1000 });
    loop.start();
    for (let i = 0; i < 5; i++) await tick();
    expect(round).toHaveBeenCalledTimes(3);
    await jest.advanceTimersByTimeAsync(1000);
    expect(round).toHaveBeenCalledTimes(4);
    const stopping = loop.stop();
    await jest.advanceTimersByTimeAsync(0);
    await stopping;
  });

  it('wakes at once when asked, and keeps a wake that came during a round', async () => {
    let release!: () => void;
    const rounds: number[] = [];
    const loop = new WorkerLoop(
      async () => {
        rounds.push(rounds.length);
        if (rounds.length === 2) await new Promise<void>((resolve) => (release = resolve));
        return false;
      },
      { name: 'test', logger: quiet, pollIntervalMs: 60_000 },
    );
    loop.start();
    await tick();
    loop.wake(); // interrupts the first idle
    await tick();
    expect(rounds).toHaveLength(2);
    loop.wake(); // arrives during the second round
    release();
    for (let i = 0; i < 3; i++) await tick();
    expect(rounds).toHaveLength(3);
    const stopping = loop.stop();
    await jest.advanceTimersByTimeAsync(0);
    await stopping;
  });

  it('backs off after a failing round, and wakes do not cut the backoff short', async () => {
    const round = jest.fn(async () => {
      throw new Error('broker down');
    });
    const loop = new WorkerLoop(round, { name: 'test', logger: quiet, pollIntervalMs: 10, failureBackoff: { initialMs: 500, maxMs: 500, jitter: 0 } });
    loop.start();
    await tick();
    expect(round).toHaveBeenCalledTimes(1);
    loop.wake();
    await jest.advanceTimersByTimeAsync(499);
    expect(round).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(round).toHaveBeenCalledTimes(2);
    const stopping = loop.stop();
    await jest.advanceTimersByTimeAsync(0);
    await stopping;
  });
});
