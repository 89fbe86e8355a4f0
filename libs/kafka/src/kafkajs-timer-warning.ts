import * as path from 'node:path';

const requestQueue = path.join('kafkajs', 'src', 'network', 'requestQueue');
let installed = false;

/**
 * kafkajs 2.2.4, its last release, arms its request queue's timer at `throttledUntil - now` before
 * any broker has throttled it: a large negative delay. Node has always run such a timer after 1 ms;
 * from Node 23 on it also prints a TimeoutNegativeWarning, once per process, so every process that
 * talks to Kafka printed one that says nothing about our code. This drops exactly that warning (one
 * armed from kafkajs's request queue) and passes every other warning on. Node warns of negative
 * timers only once, so after kafkajs's first one a later negative timer of ours goes unreported.
 */
export function dropKafkajsNegativeTimerWarning(): void {
  if (installed) return;
  installed = true;
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === 'TimeoutNegativeWarning' && new Error().stack?.includes(requestQueue)) return;
    emitWarning(warning, ...rest);
  }) as typeof process.emitWarning;
}
