import { Caller } from './caller';

/**
 * Tokens already verified, with the caller each names, so that a client sending the same token with
 * every request pays for one signature check a minute, not one per request (the check was 4–6 % of
 * the tasks service's CPU at saturation). Only a token that verified is kept, and no longer than
 * `maxAgeMs` nor past its own `exp`: a key withdrawn from the JWKS stops its tokens within that
 * minute. Bounded: the oldest entry goes when it is full.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, { caller: Caller; until: number }>();

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxAgeMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  callerOf(token: string): Caller | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.caller;
    this.entries.delete(token);
    return undefined;
  }

  /** `expiresAt` is the token's `exp`, in seconds since the epoch. */
  remember(token: string, caller: Caller, expiresAt: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(token, { caller, until: Math.min(expiresAt * 1000, this.now() + this.maxAgeMs) });
  }
}
