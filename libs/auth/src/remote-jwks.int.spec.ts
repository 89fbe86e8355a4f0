import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, JWK, SignJWT } from 'jose';
import { InvalidToken, TokenVerifier } from './token-verifier';

/** An identity provider's JWKS endpoint on loopback, whose keys the test changes. */
describe('a remote JWKS', () => {
  let server: Server;
  let published: JWK[] = [];
  let fetches = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  afterEach(() => jest.restoreAllMocks());

  it('stops the tokens of a key withdrawn at the provider within a minute', async () => {
    // Given a provider publishing one key, and a token of it verified
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    published = [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }];
    const verifier = new TokenVerifier({
      jwksUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
      issuer: 'idp',
      audience: 'api',
      algorithms: ['RS256'],
      clockToleranceSeconds: 0,
    });
    const token = (sub: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setSubject(sub)
        .setIssuer('idp')
        .setAudience('api')
        .setExpirationTime('1h')
        .sign(privateKey);
    expect((await verifier.callerOf(`Bearer ${await token('alice')}`)).userId).toBe('alice');

    // When the provider withdraws it
    published = [];
    const fetchesBefore = fetches;

    // Then a token of that key still verifies from the cache within the minute…
    expect((await verifier.callerOf(`Bearer ${await token('bob')}`)).userId).toBe('bob');
    expect(fetches).toBe(fetchesBefore);

    // …and is refused once the minute has passed (jose's default would keep the key ten minutes)
    const realNow = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(realNow + 61_000);
    await expect(verifier.callerOf(`Bearer ${await token('carol')}`)).rejects.toBeInstanceOf(InvalidToken);
    expect(fetches).toBe(fetchesBefore + 1);
  });
});
