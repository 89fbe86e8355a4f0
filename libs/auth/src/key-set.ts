import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLocalJWKSet, createRemoteJWKSet, errors, JSONWebKeySet, JWTVerifyGetKey } from 'jose';

/**
 * The keys tokens are verified with. A remote JWKS is fetched by jose, which fetches it again when a
 * token names a key it does not hold (a key rotated in at the provider). A file is read again when
 * it changed and a token names a key it does not hold: a key added after start is accepted without
 * a restart either way.
 */
export function keySet(jwksUrl: string): JWTVerifyGetKey {
  // Kept a minute (jose's default is ten): a key withdrawn at the provider stops its tokens within
  // the minute docs/security.md promises, as the cache of verified tokens does.
  if (/^https?:\/\//.test(jwksUrl)) return createRemoteJWKSet(new URL(jwksUrl), { cacheMaxAge: 60_000, cooldownDuration: 5_000, timeoutDuration: 5_000 });
  const file = jwksUrl.startsWith('file:') ? fileURLToPath(jwksUrl) : jwksUrl;
  let loaded: { mtimeMs: number; keys: JWTVerifyGetKey } | undefined;
  const load = () => {
    const mtimeMs = fs.statSync(file).mtimeMs;
    if (!loaded || loaded.mtimeMs !== mtimeMs) {
      loaded = { mtimeMs, keys: createLocalJWKSet(JSON.parse(fs.readFileSync(file, 'utf8')) as JSONWebKeySet) };
    }
    return loaded.keys;
  };
  return async (header, token) => {
    try {
      return await load()(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      loaded = undefined;
      return load()(header, token);
    }
  };
}
