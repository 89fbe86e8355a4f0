import { EnvReader } from '@app/config';
import { localAudience, localAuthFiles, localIssuer } from './local-keys';

export interface AuthConfig {
  /** An identity provider's JWKS URL (https), or a file holding a JWKS (the local default). */
  jwksUrl: string;
  issuer: string;
  audience: string;
  /** Pinned: a token signed with anything else is refused, `none` and HS256 among them. */
  algorithms: string[];
  /** How far our clock and the identity provider's may disagree on `exp`, `nbf` and `iat`. */
  clockToleranceSeconds: number;
}

/** The identity settings, each with the local stack's default. */
export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  const algorithms = (env.AUTH_ALGORITHMS || 'RS256,ES256')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const refused = algorithms.filter((a) => !/^(RS|PS|ES)(256|384|512)$|^EdDSA$/.test(a));
  const read = new EnvReader(env, 'authentication');
  if (refused.length) read.problems.push(`AUTH_ALGORITHMS may list only asymmetric algorithms (RS256, ES256, …), got ${refused.join(', ')}`);
  const clockToleranceMs = read.duration('AUTH_CLOCK_TOLERANCE', '30s');
  if (clockToleranceMs > 300_000) read.problems.push(`AUTH_CLOCK_TOLERANCE must be at most 5m, got "${env.AUTH_CLOCK_TOLERANCE}"`);
  return read.done({
    jwksUrl: env.AUTH_JWKS_URL || localAuthFiles().jwks,
    issuer: env.AUTH_ISSUER || localIssuer,
    audience: env.AUTH_AUDIENCE || localAudience,
    algorithms,
    clockToleranceSeconds: Math.floor(clockToleranceMs / 1000),
  });
}
