import { randomBytes } from 'node:crypto';
import { CannotOpen, DataKey, erased, keyIdOf, masterKeysOf, newDataKey, openText, rewrapDataKey, sealText, unwrapDataKey, wrapDataKey } from './index';

const masterFile = (current: string, ...ids: string[]) =>
  JSON.stringify({ current, keys: Object.fromEntries(ids.map((id) => [id, randomBytes(32).toString('base64')])) });
const keyring =
  (...keys: DataKey[]) =>
  (keyId: string) =>
    keys.find((k) => k.keyId === keyId);

describe('personal data, sealed under a per-user key', () => {
  const canary = 'canary-7f3a9 the user’s secret plans';
  const ann = newDataKey('ann');
  const bob = newDataKey('bob');

  it('seals a field so that its bytes hold nothing of the text, and opens it with the user’s key', () => {
    const sealed = sealText(canary, ann);
    expect(sealed).toMatch(/^sealed:v1:[0-9a-f-]{36}:/);
    expect(keyIdOf(sealed)).toBe(ann.keyId);
    expect(Buffer.from(sealed).includes(Buffer.from('canary'))).toBe(false);
    expect(Buffer.from(sealed, 'utf8').toString('latin1')).not.toContain('secret');
    expect(sealText(canary, ann)).not.toBe(sealed); // a fresh nonce each time
    expect(openText(sealed, keyring(ann))).toBe(canary);
  });

  it('reads "[erased]" once the key is gone, and passes a value written before sealing through', () => {
    expect(openText(sealText(canary, ann), keyring(bob))).toBe(erased);
    expect(openText('{"text":"old"}', keyring())).toBe('{"text":"old"}');
    expect(keyIdOf('{"text":"old"}')).toBeUndefined();
  });

  it('refuses a field moved to another user, or altered by one byte', () => {
    const sealed = sealText(canary, ann);
    // The same key bytes claimed for another user: the associated data (the user) does not match.
    expect(() => openText(sealed, () => ({ ...ann, userId: 'mallory' }))).toThrow(CannotOpen);
    const tail = sealed.slice(-4);
    const altered = sealed.slice(0, -4) + (tail === 'AAAA' ? 'BAAA' : 'AAAA');
    expect(() => openText(altered, keyring(ann))).toThrow(CannotOpen);
  });

  it('keeps data keys only wrapped under the current master key, bound to their user and id', () => {
    const master = masterKeysOf(masterFile('mk-1', 'mk-1'));
    const wrapped = wrapDataKey(ann, master);
    expect(wrapped).toMatch(/^wrapped:v1:mk-1:/);
    expect(Buffer.from(wrapped).includes(ann.key)).toBe(false);
    expect(unwrapDataKey(wrapped, ann, master).key.equals(ann.key)).toBe(true);
    expect(() => unwrapDataKey(wrapped, { keyId: ann.keyId, userId: 'bob' }, master)).toThrow(CannotOpen);
    expect(() => unwrapDataKey(wrapped, bob, master)).toThrow(CannotOpen);
  });

  it('rotates the master key: old wrapped keys still open, rewrapped ones move to the new key, and the old key can then retire', () => {
    const before = masterKeysOf(masterFile('mk-1', 'mk-1'));
    const wrappedBefore = wrapDataKey(ann, before);
    const newKey = randomBytes(32).toString('base64');
    const oldKey = before.keys.get('mk-1')!.toString('base64');
    const rotating = masterKeysOf(JSON.stringify({ current: 'mk-2', keys: { 'mk-1': oldKey, 'mk-2': newKey } }));

    expect(unwrapDataKey(wrappedBefore, ann, rotating).key.equals(ann.key)).toBe(true);
    const rewrapped = rewrapDataKey(wrappedBefore, ann, rotating);
    expect(rewrapped).toMatch(/^wrapped:v1:mk-2:/);
    expect(rewrapDataKey(rewrapped, ann, rotating)).toBe(rewrapped);

    const retired = masterKeysOf(JSON.stringify({ current: 'mk-2', keys: { 'mk-2': newKey } }));
    expect(unwrapDataKey(rewrapped, ann, retired).key.equals(ann.key)).toBe(true);
    expect(() => unwrapDataKey(wrappedBefore, ann, retired)).toThrow('wrapped under master key mk-1, which is not among this service');
  });

  it('refuses a master key file it cannot trust, saying what is wrong', () => {
    expect(() => masterKeysOf('not json')).toThrow('is not JSON');
    expect(() => masterKeysOf(JSON.stringify({ current: 'a', keys: { a: 'c2hvcnQ=' } }))).toThrow('master key a is not 32 bytes');
    expect(() => masterKeysOf(masterFile('missing', 'a'))).toThrow('"current" must name one of its keys');
    expect(() => masterKeysOf(masterFile('a b', 'a b'))).toThrow('master key id "a b"');
  });
});
