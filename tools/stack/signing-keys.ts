import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { exportJWK, generateKeyPair } from 'jose';
import { localAuthFiles } from '@app/auth';

/**
 * The local stack's token signing key pair, made once: the services verify with the public JWKS,
 * `npm run token` signs with the private key (readable by this user only). A key added to the JWKS
 * later is picked up by running services without a restart.
 */
export async function ensureSigningKeys(stackDir: string): Promise<'made' | 'present'> {
  const files = localAuthFiles(stackDir);
  fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  // The key that seals webhook secrets at rest, made once: a new one would orphan the sealed secrets.
  if (!fs.existsSync(files.webhookSecretKey)) fs.writeFileSync(files.webhookSecretKey, randomBytes(32).toString('base64'), { mode: 0o600 });
  // The master key users' data keys are wrapped under, made once for the same reason (docs/privacy.md).
  if (!fs.existsSync(files.masterKeys)) {
    const id = `local-${new Date().toISOString().slice(0, 10)}`;
    fs.writeFileSync(files.masterKeys, JSON.stringify({ current: id, keys: { [id]: randomBytes(32).toString('base64') } }), { mode: 0o600 });
  }
  if (fs.existsSync(files.jwks) && fs.existsSync(files.privateKey)) return 'present';
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  const common = { kid, alg: 'RS256', use: 'sig' };
  fs.writeFileSync(files.privateKey, JSON.stringify({ ...(await exportJWK(privateKey)), ...common }), { mode: 0o600 });
  fs.writeFileSync(files.jwks, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), ...common }] }, null, 2));
  return 'made';
}
