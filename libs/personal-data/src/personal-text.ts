import { DataKey } from './data-keys';
import { CannotOpen, open, seal } from './sealing';

/** `sealed:v1:<data key id>:<sealed text>`: a personal field as events and rows carry it. */
const sealedFormat = /^sealed:v1:([0-9a-f-]{36}):([A-Za-z0-9_-]+)$/;

/** What a reader shows for a personal field whose key was erased. */
export const erased = '[erased]';

export function sealText(text: string, dataKey: DataKey): string {
  return `sealed:v1:${dataKey.keyId}:${seal(dataKey.key, Buffer.from(text, 'utf8'), dataKey.userId)}`;
}

/** The key id a sealed field needs, or undefined for a value that is not sealed (written before sealing). */
export function keyIdOf(value: string): string | undefined {
  return sealedFormat.exec(value)?.[1];
}

/**
 * The text of a sealed field. `keyOf` finds the user's data key by id, or answers undefined when it is
 * gone (erased): the field then reads `[erased]`. A value that is not sealed is returned as it is.
 */
export function openText(value: string, keyOf: (keyId: string) => DataKey | undefined): string {
  const match = sealedFormat.exec(value);
  if (!match) return value;
  const dataKey = keyOf(match[1]);
  if (!dataKey) return erased;
  if (dataKey.keyId !== match[1]) throw new CannotOpen(`asked for data key ${match[1]}, given ${dataKey.keyId}`);
  return open(dataKey.key, match[2], dataKey.userId).toString('utf8');
}
