import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Webhook secrets at rest: AES-256-GCM under WEBHOOK_SECRET_KEY (32 bytes, base64 or hex), each with
 * its own nonce, stored as `v1.<nonce>.<tag>.<ciphertext>` (base64url). A secret read back with
 * another key, or tampered with, fails to open rather than yield garbage.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(keyText: string) {
    const key = /^[0-9a-f]{64}$/i.test(keyText) ? Buffer.from(keyText, 'hex') : Buffer.from(keyText, 'base64');
    if (key.length !== 32) throw new Error('WEBHOOK_SECRET_KEY must be 32 bytes, as 64 hex digits or base64');
    this.key = key;
  }

  seal(plain: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', nonce, cipher.getAuthTag(), sealed].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  open(stored: string): string {
    const [version, nonce, tag, sealed] = stored.split('.');
    if (version !== 'v1' || !nonce || !tag || sealed === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith('v1.');
  }
}
