import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { exportJWK, exportSPKI, generateKeyPair, JWK, KeyLike, SignJWT, UnsecuredJWT } from 'jose';
import { InvalidToken, TokenVerifier } from './token-verifier';

const issuer = 'test-issuer';
const audience = 'test-audience';

async function signingKey(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, publicKey, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } as JWK };
}

function sign(
  key: { kid: string; privateKey: KeyLike },
  claims: Record<string, unknown> = {},
  options: { sub?: string; iss?: string; aud?: string; exp?: string | number } = {},
) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: key.kid })
    .setSubject(options.sub ?? 'alice')
    .setIssuer(options.iss ?? issuer)
    .setAudience(options.aud ?? audience)
    .setIssuedAt()
    .setExpirationTime(options.exp ?? '5m')
    .sign(key.privateKey);
}

describe('bearer token verification', () => {
  let dir: string;
  let jwksFile: string;
  let trusted: Awaited<ReturnType<typeof signingKey>>;
  let verifier: TokenVerifier;
  const bearer = (token: string) => `Bearer ${token}`;
  const refused = async (authorization: string | undefined, reason: RegExp) => {
    const outcome = verifier.callerOf(authorization);
    await expect(outcome).rejects.toBeInstanceOf(InvalidToken);
    await expect(outcome).rejects.toThrow(reason);
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jwks-'));
    jwksFile = path.join(dir, 'jwks.json');
    trusted = await signingKey('key-1');
    fs.writeFileSync(jwksFile, JSON.stringify({ keys: [trusted.jwk] }));
    verifier = new TokenVerifier({ jwksUrl: jwksFile, issuer, audience, algorithms: ['RS256'], clockToleranceSeconds: 30 });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('takes the user from sub and the known roles from the roles claim', async () => {
    const caller = await verifier.callerOf(bearer(await sign(trusted, { roles: ['admin', 'root'] })));
    expect(caller.userId).toBe('alice');
    expect([...caller.roles]).toEqual(['admin']);
  });

  it('refuses a missing or malformed Authorization header', async () => {
    await refused(undefined, /required/);
    await refused('Basic YWxpY2U6c2VjcmV0', /Bearer <JWT>/);
    await refused('Bearer not-a-jwt', /Bearer <JWT>/);
  });

  it('refuses an expired token, and one for another issuer or audience', async () => {
    await refused(bearer(await sign(trusted, {}, { exp: Math.floor(Date.now() / 1000) - 60 })), /expired/);
    await refused(bearer(await sign(trusted, {}, { iss: 'someone-else' })), /iss/);
    await refused(bearer(await sign(trusted, {}, { aud: 'another-api' })), /aud/);
  });

  it('forgives a clock that disagrees by less than the tolerance, and no more', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await verifier.callerOf(bearer(await sign(trusted, {}, { exp: now - 10 })))).userId).toBe('alice');
    await refused(bearer(await sign(trusted, {}, { exp: now - 45 })), /expired/);
  });

  it('refuses an unsigned token (alg none)', async () => {
    const unsigned = new UnsecuredJWT({ roles: ['admin'] }).setSubject('alice').setIssuer(issuer).setAudience(audience).setExpirationTime('5m').encode();
    await refused(bearer(unsigned), /not/);
  });

  it('refuses a token signed with HS256 using the public key as the secret', async () => {
    // The classic key-confusion forgery: the attacker knows the public key and HMACs with it.
    const publicPem = await exportSPKI(trusted.publicKey);
    const forged = await new SignJWT({ roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256', kid: trusted.kid })
      .setSubject('alice')
      .setIssuer(issuer)
      .setAudience(audience)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(publicPem));
    await refused(bearer(forged), /algorithm/);
  });

  it('refuses a token signed with a key the JWKS does not hold, and a sub that is not a user id', async () => {
    const stranger = await signingKey('key-unknown');
    await refused(bearer(await sign(stranger)), /key that is not trusted/);
    await refused(bearer(await sign(trusted, {}, { sub: 'alice\u0000' })), /sub/);
  });

  it('accepts a key added to the JWKS after start, without a new verifier', async () => {
    const rotated = await signingKey('key-2');
    const token = bearer(await sign(rotated, {}, { sub: 'bob' }));
    await refused(token, /not trusted/);
    fs.writeFileSync(jwksFile, JSON.stringify({ keys: [trusted.jwk, rotated.jwk] }));
    fs.utimesSync(jwksFile, new Date(), new Date(Date.now() + 5_000)); // a new mtime even within one clock tick
    expect((await verifier.callerOf(token)).userId).toBe('bob');
  });
});
