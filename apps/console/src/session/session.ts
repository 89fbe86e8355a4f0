import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parse, serialize } from 'cookie';
import type { Caller } from '@app/auth';

export const sessionCookie = 'console_session';
/** A nonce of the sign-in form's browser: the form's CSRF token is bound to it (login CSRF). */
export const signInCookie = 'console_sign_in';

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

/**
 * Set with the sign-in form: a site that posts a token of its own to /sign-in (to sign the operator
 * in as the attacker) cannot send this cookie (SameSite=Strict) nor read the form's token bound to it.
 */
export function signInCookieHeader(nonce: string, secure: boolean): string {
  return serialize(signInCookie, nonce, { path: '/sign-in', httpOnly: true, sameSite: 'strict', maxAge: 3600, secure });
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
