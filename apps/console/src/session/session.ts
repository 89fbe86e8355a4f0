import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Caller } from '@app/auth';

export const sessionCookie = 'console_session';

/** A signed-in operator: their token (sent on to the services) and what it says about them. */
export interface Session {
  token: string;
  caller: Caller;
  csrf: string;
}

/** Reads one cookie from a Cookie header, without a parser dependency. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key !== name) continue;
    try {
      return decodeURIComponent(rest.join('='));
    } catch {
      return undefined; // not percent-encoded as we set it: no session
    }
  }
  return undefined;
}

/** The token lives in an HttpOnly, SameSite=Strict cookie: no script reads it, no other site sends it. */
export function sessionCookieHeader(token: string, secure: boolean, maxAgeSeconds = 8 * 3600): string {
  return `${sessionCookie}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
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
