import * as fs from 'node:fs';
import { importJWK, JWK, SignJWT } from 'jose';
import { localAudience, localAuthFiles, localIssuer, Role } from '@app/auth';

export interface TokenRequest {
  userId: string;
  roles?: Role[];
  /** Lifetime as jose reads it: "1h", "15m", "30s". */
  ttl?: string;
  stackDir?: string;
}

/** A token signed with the local stack's key, for the local issuer and audience. */
export async function signLocalToken({ userId, roles = [], ttl = '1h', stackDir }: TokenRequest): Promise<string> {
  const files = localAuthFiles(stackDir);
  if (!fs.existsSync(files.privateKey)) throw new Error(`no signing key at ${files.privateKey}: run npm run stack:up first`);
  const jwk = JSON.parse(fs.readFileSync(files.privateKey, 'utf8')) as JWK;
  const key = await importJWK(jwk, jwk.alg);
  return new SignJWT({ ...(roles.length ? { roles } : {}) })
    .setProtectedHeader({ alg: jwk.alg ?? 'RS256', kid: jwk.kid, typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(localIssuer)
    .setAudience(localAudience)
    .setIssuedAt()
    .setExpirationTime(ttl)
    .sign(key);
}
