import { errors, JWTVerifyGetKey, jwtVerify } from 'jose';
import { userIdPattern } from '@app/events';
import { AuthConfig } from './auth.config';
import { Caller, Role, roles } from './caller';
import { keySet } from './key-set';
import { VerifiedTokens } from './verified-tokens';

/** A token that proves nothing: missing, malformed, expired, for someone else, or signed with a key we do not trust. */
export class InvalidToken extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidToken';
  }
}

/** Verifies bearer tokens against the JWKS, issuer, audience and pinned algorithms of the config. */
export class TokenVerifier {
  private readonly keys: JWTVerifyGetKey;
  private readonly verified = new VerifiedTokens();

  constructor(private readonly config: AuthConfig) {
    this.keys = keySet(config.jwksUrl);
  }

  /** The caller an `Authorization` header names, or InvalidToken saying what is wrong with it. */
  async callerOf(authorization: string | undefined): Promise<Caller> {
    if (!authorization) throw new InvalidToken('an Authorization: Bearer token is required');
    const match = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/.exec(authorization);
    if (!match) throw new InvalidToken('the Authorization header must be "Bearer <JWT>"');
    const known = this.verified.callerOf(match[1]);
    if (known) return known;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(match[1], this.keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: this.config.algorithms,
        requiredClaims: ['sub', 'exp'],
        clockTolerance: this.config.clockToleranceSeconds,
      }));
    } catch (error) {
      throw new InvalidToken(reasonOf(error));
    }
    const sub = payload.sub;
    if (typeof sub !== 'string' || !userIdPattern.test(sub)) throw new InvalidToken("the token's sub is not a valid user id");
    const claimed = Array.isArray(payload.roles) ? payload.roles : typeof payload.roles === 'string' ? payload.roles.split(' ') : [];
    const caller = { userId: sub, roles: new Set(claimed.filter((r): r is Role => (roles as readonly unknown[]).includes(r))) };
    this.verified.remember(match[1], caller, payload.exp as number);
    return caller;
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `the token's ${error.claim} claim is not accepted`;
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the token is signed with an algorithm that is not accepted';
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token is signed with a key that is not trusted';
  if (error instanceof errors.JWSSignatureVerificationFailed) return "the token's signature does not verify";
  return 'the token is not valid';
}
