import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** AES-256-GCM: a fresh 12-byte nonce per message, a 16-byte tag, and associated data bound in. */
const ivBytes = 12;
const tagBytes = 16;

export class CannotOpen extends Error {}

/** `iv | tag | ciphertext`, base64url: what the formats below carry after their ids. */
export function seal(key: Buffer, plaintext: Buffer, associated: string): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

/** The plaintext, or CannotOpen when the key, the associated data or a byte of it is not the sealer's. */
export function open(key: Buffer, sealed: string, associated: string): Buffer {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < ivBytes + tagBytes) throw new CannotOpen('the sealed value is too short');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, ivBytes));
  decipher.setAAD(Buffer.from(associated, 'utf8'));
  decipher.setAuthTag(bytes.subarray(ivBytes, ivBytes + tagBytes));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(ivBytes + tagBytes)), decipher.final()]);
  } catch {
    throw new CannotOpen('the sealed value does not open with this key (another key, another owner, or altered)');
  }
}
