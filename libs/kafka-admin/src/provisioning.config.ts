import { EnvReader } from '@app/config';

/** TASK_REQUESTED_RETENTION (`168h`, seven days, by default), read by provisioning: how long outside requests are kept. */
export function outsideRequestRetentionMs(env: NodeJS.ProcessEnv = process.env): number {
  const read = new EnvReader(env, 'provisioning');
  return read.done(read.duration('TASK_REQUESTED_RETENTION', '168h'));
}

/**
 * USER_DATA_KEY_COMPACTION (`1h` by default), read by provisioning: how soon the keys' topic rolls a
 * segment, after which the cleaner drops the wrapped bytes of a key its erasure replaced.
 */
export function keyCompactionAfterMs(env: NodeJS.ProcessEnv = process.env): number {
  const read = new EnvReader(env, 'provisioning');
  return read.done(read.duration('USER_DATA_KEY_COMPACTION', '1h'));
}

/**
 * LEGACY_EXTERNAL (`on` by default), read by provisioning: whether the single-partner default
 * principal `external` keeps its grants on the shared request and outcome topics. `off` withdraws
 * them at the next provisioning (docs/ingress.md, moving to a partner).
 */
export function legacyExternalOn(env: NodeJS.ProcessEnv = process.env): boolean {
  const read = new EnvReader(env, 'provisioning');
  return read.done(read.flag('LEGACY_EXTERNAL', true));
}

/**
 * The largest record an outside request topic takes (the shared ones and every partner's): a
 * request's input is at most 64 KB, so 256 KiB leaves room for its envelope and headers and stays
 * far under what a dead-letter topic takes, with the letter's own headers added.
 */
export const requestRecordMaxBytes = 256 * 1024;

/**
 * The largest record a dead-letter topic takes: twice the broker's default limit (1 MiB), which
 * bounds every other topic's records, so a letter (the record and at most a few KB of headers of ours) always fits.
 */
export const deadLetterRecordMaxBytes = 2 * 1_048_588;
