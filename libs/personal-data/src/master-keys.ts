import * as fs from 'node:fs';
import { localAuthFiles } from '@app/auth';

/**
 * The operator's master keys, from a secret file: `{"current": "<id>", "keys": {"<id>": "<32 bytes,
 * base64>", …}}`. The current one wraps new data keys; the others still unwrap what they wrapped,
 * until every stored key has been rewrapped under the current one and they can be retired.
 */
export interface MasterKeys {
  current: string;
  keys: ReadonlyMap<string, Buffer>;
}

export function masterKeysOf(json: string, source = 'the master key file'): MasterKeys {
  let parsed: { current?: unknown; keys?: unknown };
  try {
    parsed = JSON.parse(json) as typeof parsed;
  } catch {
    throw new Error(`${source} is not JSON`);
  }
  const entries = typeof parsed.keys === 'object' && parsed.keys !== null ? Object.entries(parsed.keys) : [];
  const keys = new Map<string, Buffer>();
  for (const [id, value] of entries) {
    const key = typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(id)) throw new Error(`${source}: master key id "${id}" is not 1–64 letters, digits, '.', '_' or '-'`);
    if (key.length !== 32) throw new Error(`${source}: master key ${id} is not 32 bytes of base64`);
    keys.set(id, key);
  }
  if (typeof parsed.current !== 'string' || !keys.has(parsed.current)) throw new Error(`${source}: "current" must name one of its keys`);
  return { current: parsed.current, keys };
}

export function readMasterKeys(file: string): MasterKeys {
  let json: string;
  try {
    json = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`the master key file ${file} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  return masterKeysOf(json, file);
}

/**
 * The master keys of a service that reads personal data (tasks, generation): MASTER_KEYS_FILE, or
 * the file `npm run stack:up` made for the local stack. Without either the service refuses to start:
 * it will not keep users' inputs in clear.
 */
export function loadMasterKeys(env: NodeJS.ProcessEnv = process.env): MasterKeys {
  if (env.MASTER_KEYS_FILE) return readMasterKeys(env.MASTER_KEYS_FILE);
  const file = localAuthFiles().masterKeys;
  if (fs.existsSync(file)) return readMasterKeys(file);
  throw new Error(`MASTER_KEYS_FILE is not set and ${file} does not exist (npm run stack:up makes it)`);
}
