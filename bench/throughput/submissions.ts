import type { Platform } from '@test/platform';
import { percentile } from '../bench-support';
import type { OutcomeWatcher } from './outcome-watcher';
import { setTimeout as sleep } from 'node:timers/promises';

export const users = Array.from({ length: 200 }, (_, i) => `bench-user-${i}`);
/** The first 20 of them: a phase checks that 64 requests in flight from 20 users do not queue behind one another. */
export const fewUsers = users.slice(0, 20);
export const singleUser = 'bench-single-user';
/** The client's own limit on requests in flight: "at once", without 1,000 sockets. */
export const inFlight = 64;
/** Raised for the run so that one user may have every task of it open at once (the default is 100). */
export const openTaskCap = 100_000;

export interface Submitted {
  ids: string[];
  postedAt: Map<string, number>;
  /** How long each POST took to answer, in ms. */
  answeredInMs: number[];
}

/** POSTs `count` tasks, `inFlight` at a time or one every `intervalMs`; anything but 202 fails the run. */
export async function submit(
  platform: Platform,
  count: number,
  label: string,
  intervalMs = 0,
  userOf = (i: number) => users[i % users.length],
): Promise<Submitted> {
  const postedAt = new Map<string, number>();
  const answeredInMs: number[] = [];
  let next = 0;
  const one = async () => {
    const i = next++;
    const at = Date.now();
    const answer = await platform.submit(userOf(i), { label, i }, `${label}-${i}`);
    if (answer.status !== 202) throw new Error(`POST /tasks answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    answeredInMs.push(Date.now() - at);
    postedAt.set(answer.body.taskId as string, at);
  };
  if (intervalMs > 0) {
    const pending: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      pending.push(one());
      await sleep(intervalMs);
    }
    await Promise.all(pending);
  } else {
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < count) await one();
      }),
    );
  }
  return { ids: [...postedAt.keys()], postedAt, answeredInMs };
}

const round = (n: number, places = 1) => +n.toFixed(places);

/**
 * `tasks` tasks at once, from the first POST to the last TaskCompleted, then every consumer caught
 * up and every outbox relayed, so that the next phase starts on an idle platform: tasks/s, and the
 * POSTs' answer times.
 */
export async function saturation(platform: Platform, watcher: OutcomeWatcher, tasks: number, label: string, userOf?: (i: number) => string) {
  const started = Date.now();
  const { ids, answeredInMs } = await submit(platform, tasks, label, 0, userOf);
  const submittedSeconds = (Date.now() - started) / 1000;
  await watcher.allCompleted(ids, 600_000);
  const last = Math.max(...ids.map((id) => watcher.completedAt.get(id)!));
  await platform.consumersCaughtUp(600_000);
  const answered = answeredInMs.sort((a, b) => a - b);
  return {
    tasksPerSecond: tasks / ((last - started) / 1000),
    acceptedPerSecond: round(tasks / submittedSeconds),
    postMs: { p50: percentile(answered, 50), p99: percentile(answered, 99) },
  };
}

/** Tasks at `rate` a second for `seconds` (`label` tells one run's idempotency keys from another's): POST → TaskCompleted of each, and every event's relay lag, sorted. */
export async function steadyLoad(platform: Platform, watcher: OutcomeWatcher, rate: number, seconds: number, label: string) {
  watcher.measureRelayLag(true);
  const load = await submit(platform, Math.round(rate * seconds), label, 1000 / rate);
  await watcher.allCompleted(load.ids, 120_000);
  const relayLags = watcher.measureRelayLag(false);
  const stages = watcher.stagesOf(load.postedAt);
  await platform.consumersCaughtUp(600_000);
  const latencies = load.ids.map((id) => watcher.completedAt.get(id)! - load.postedAt.get(id)!).sort((a, b) => a - b);
  return { latencies, relayLags, stages };
}
