import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parse, serialize } from 'cookie';
import type { Caller } from '@app/auth';

export const sessionCookie = 'console_session';

/** A signed-in operator: their token (sent on to the services) and what it says about them. */
export interface Session {
  token: string;
  caller: Caller;
  csrf: string;
}

/** What a cookie not percent-encoded as we set it reads as: no session. */
const malformed = Symbol('malformed cookie').toString();

/** Reads one cookie from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  const value = parse(header ?? '', {
    decode: (text) => {
      try {
        return decodeURIComponent(text);
      } catch {
        return malformed;
      }
    },
  })[name];
  return value === malformed ? undefined : value;
}

/** The token lives in an HttpOnly, SameSite=Strict cookie: no script reads it, no other site sends it. */
export function sessionCookieHeader(token: string, secure: boolean, maxAgeSeconds = 8 * 3600): string {
  return serialize(sessionCookie, token, { path: '/', httpOnly: true, sameSite: 'strict', maxAge: maxAgeSeconds, secure });
}

export function clearedSessionCookieHeader(secure: boolean): string {
  return sessionCookieHeader('', secure, 0);
}

/**
 * CSRF tokens bound to the session: an HMAC of the operator's token under a key of this process.
 * Every action form carries one; a request forged from elsewhere has none that matches.
 */
export class CsrfTokens {
  constructor(private readonly key: Buffer = randomBytes(32)) {}

  for(sessionToken: string): string {
    return createHmac('sha256', this.key).update(sessionToken).digest('base64url');
  }

  matches(sessionToken: string, presented: unknown): boolean {
    if (typeof presented !== 'string') return false;
    const expected = Buffer.from(this.for(sessionToken));
    const given = Buffer.from(presented);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
