import { randomBytes, randomUUID } from 'node:crypto';
import { MasterKeys } from './master-keys';
import { CannotOpen, open, seal } from './sealing';

/**
 * A user's data key: what their personal fields are sealed under. Stored only wrapped (sealed under
 * a master key, bound to the user and the key's id); erasing the user deletes every wrapped copy, and
 * with it every way to read what the key sealed, wherever those bytes are kept.
 */
export interface DataKey {
  keyId: string;
  userId: string;
  key: Buffer;
}

/** `wrapped:v1:<master key id>:<sealed key>` */
const wrappedFormat = /^wrapped:v1:([A-Za-z0-9._-]{1,64}):([A-Za-z0-9_-]+)$/;

export function newDataKey(userId: string): DataKey {
  return { keyId: randomUUID(), userId, key: randomBytes(32) };
}

export function wrapDataKey(dataKey: DataKey, master: MasterKeys): string {
  return `wrapped:v1:${master.current}:${seal(master.keys.get(master.current)!, dataKey.key, boundTo(dataKey))}`;
}

export function unwrapDataKey(wrapped: string, owner: Pick<DataKey, 'keyId' | 'userId'>, master: MasterKeys): DataKey {
  const match = wrappedFormat.exec(wrapped);
  if (!match) throw new CannotOpen('not a wrapped data key');
  const masterKey = master.keys.get(match[1]);
  if (!masterKey) throw new CannotOpen(`the data key was wrapped under master key ${match[1]}, which is not among this service's master keys`);
  return { ...owner, key: open(masterKey, match[2], boundTo(owner)) };
}

/** The same data key wrapped under the current master key (rotation); one already under it comes back as it was. */
export function rewrapDataKey(wrapped: string, owner: Pick<DataKey, 'keyId' | 'userId'>, master: MasterKeys): string {
  if (wrapped.startsWith(`wrapped:v1:${master.current}:`)) return wrapped;
  return wrapDataKey(unwrapDataKey(wrapped, owner, master), master);
}

/** A wrapped key opens only as the key of the user and id it was made for: a copied row cannot lend its key. */
function boundTo(owner: Pick<DataKey, 'keyId' | 'userId'>): string {
  return `data key ${owner.keyId} of ${owner.userId}`;
}
