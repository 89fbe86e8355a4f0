import { Caller } from './caller';
import { VerifiedTokens } from './verified-tokens';

describe('verified tokens kept in memory', () => {
  const alice: Caller = { userId: 'alice', roles: new Set() };
  const bob: Caller = { userId: 'bob', roles: new Set(['admin']) };
  let now = 1_000_000;
  const clock = () => now;

  it('gives the caller of a token verified before, for a minute at most', () => {
    // Given a token verified now, valid for an hour
    const tokens = new VerifiedTokens(10, 60_000, clock);
    tokens.remember('token-a', alice, now / 1000 + 3600);
    // Then it is known for a minute, and forgotten after it
    now += 59_000;
    expect(tokens.callerOf('token-a')).toBe(alice);
    now += 2_000;
    expect(tokens.callerOf('token-a')).toBeUndefined();
  });

  it('never past the token’s own expiry', () => {
    // Given a token that expires in ten seconds
    const tokens = new VerifiedTokens(10, 60_000, clock);
    tokens.remember('token-b', bob, now / 1000 + 10);
    // Then it is forgotten when it expires, though the minute has not passed
    now += 9_000;
    expect(tokens.callerOf('token-b')).toBe(bob);
    now += 1_000;
    expect(tokens.callerOf('token-b')).toBeUndefined();
  });

  it('knows no token it was not given, and drops the oldest when full', () => {
    // Given room for two tokens
    const tokens = new VerifiedTokens(2, 60_000, clock);
    expect(tokens.callerOf('never-verified')).toBeUndefined();
    tokens.remember('first', alice, now / 1000 + 3600);
    tokens.remember('second', bob, now / 1000 + 3600);
    // When a third is remembered
    tokens.remember('third', alice, now / 1000 + 3600);
    // Then the first is gone and the others are kept
    expect([tokens.callerOf('first'), tokens.callerOf('second'), tokens.callerOf('third')]).toEqual([undefined, bob, alice]);
  });
});
