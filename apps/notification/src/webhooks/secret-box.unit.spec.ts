import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('webhook secrets at rest', () => {
  const box = new SecretBox(randomBytes(32).toString('base64'));

  it('seals a secret so that the stored text does not contain it, and opens it again', () => {
    const sealed = box.seal('whsec_c2VjcmV0IHNlY3JldA==');
    expect(sealed).not.toContain('whsec_');
    expect(SecretBox.isSealed(sealed)).toBe(true);
    expect(box.open(sealed)).toBe('whsec_c2VjcmV0IHNlY3JldA==');
  });

  it('seals the same secret differently each time (a nonce per seal)', () => {
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('refuses to open with another key, or a sealed secret that was tampered with', () => {
    const sealed = box.seal('whsec_x');
    expect(() => new SecretBox(randomBytes(32).toString('hex')).open(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new SecretBox('short')).toThrow(/32 bytes/);
  });
});
