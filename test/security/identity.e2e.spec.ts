import * as fs from 'node:fs';
import { exportJWK, exportSPKI, generateKeyPair, importJWK, JWK, SignJWT, UnsecuredJWT } from 'jose';
import { Client } from 'pg';
import { localAudience, localAuthFiles, localIssuer } from '@app/auth';
import { Platform } from '../support/platform';
import { asAdmin, authAs } from '../support/tokens';
import { JsonBody } from '../support/json-body';

/**
 * Identity on every HTTP call, attacked the way a hostile caller would: no token, forged tokens,
 * another user's token, a viewer trying to change things. Each refusal is checked for its answer and
 * for having left nothing behind.
 */
describe('identity on every HTTP call', () => {
  const platform = new Platform();
  const files = localAuthFiles();
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  const call = async (
    app: 'tasks' | 'quota' | 'generation' | 'notification',
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: unknown,
  ) =>
    fetch(`${platform.url(app)}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const claims = { sub: 'alice', iss: localIssuer, aud: localAudience };
  const stackKey = async () => {
    const jwk = JSON.parse(fs.readFileSync(files.privateKey, 'utf8')) as JWK;
    return { jwk, key: await importJWK(jwk, 'RS256') };
  };
  const signed = async (
    key: Parameters<SignJWT['sign']>[0],
    header: { alg: string; kid?: string },
    overrides: Record<string, unknown> = {},
    exp: string | number = '5m',
  ) =>
    new SignJWT({ ...overrides })
      .setProtectedHeader(header)
      .setSubject(claims.sub)
      .setIssuer(claims.iss)
      .setAudience((overrides.aud as string) ?? claims.aud)
      .setExpirationTime(exp)
      .sign(key);

  it('answers 401 with WWW-Authenticate: Bearer to every endpoint called without a token, and serves /health without one', async () => {
    const endpoints: Array<[Parameters<typeof call>[0], string, string, unknown?]> = [
      ['tasks', 'POST', '/tasks', { reportType: 'summary', input: {} }],
      ['tasks', 'GET', '/tasks/00000000-0000-4000-8000-000000000000'],
      ['tasks', 'GET', '/tasks?userId=alice'],
      ['quota', 'GET', '/quota/alice'],
      ['quota', 'POST', '/quota/alice/grants', { amount: 5 }],
      ['generation', 'GET', '/generations/00000000-0000-4000-8000-000000000000'],
      ['notification', 'GET', '/notifications?userId=alice'],
      ['notification', 'PUT', '/users/alice/webhook', { url: 'https://example.com/hook' }],
    ];
    for (const [app, method, path, body] of endpoints) {
      const response = await call(app, method, path, { 'idempotency-key': 'k' }, body);
      expect([app, method, path, response.status]).toEqual([app, method, path, 401]);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="task-platform", error="invalid_token"/);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
    for (const app of ['tasks', 'quota', 'generation', 'notification'] as const) expect((await call(app, 'GET', '/health')).status).toBe(200);
    expect((await platform.get('tasks', '/tasks?userId=alice')).items).toEqual([]);
  });

  it('refuses forged and stale tokens: expired, wrong audience, alg none, HS256 with the public key, an unknown key', async () => {
    const { jwk, key } = await stackKey();
    const stranger = await generateKeyPair('RS256');
    const publicPem = await exportSPKI((await importJWK({ kty: jwk.kty, n: jwk.n, e: jwk.e }, 'RS256')) as Parameters<typeof exportSPKI>[0]);
    const forgeries: Array<[string, string]> = [
      ['expired', await signed(key, { alg: 'RS256', kid: jwk.kid }, {}, Math.floor(Date.now() / 1000) - 60)],
      ['wrong audience', await signed(key, { alg: 'RS256', kid: jwk.kid }, { aud: 'another-api' })],
      [
        'alg none',
        new UnsecuredJWT({ roles: ['admin'] }).setSubject('alice').setIssuer(localIssuer).setAudience(localAudience).setExpirationTime('5m').encode(),
      ],
      ['HS256 with the public key', await signed(new TextEncoder().encode(publicPem), { alg: 'HS256', kid: jwk.kid }, { roles: ['admin'] })],
      ['unknown kid', await signed(stranger.privateKey, { alg: 'RS256', kid: 'not-a-key-of-ours' }, { roles: ['admin'] })],
    ];
    for (const [what, token] of forgeries) {
      const response = await call(
        'quota',
        'POST',
        '/quota/alice/grants',
        { authorization: `Bearer ${token}`, 'idempotency-key': `forged-${what}` },
        { amount: 1000 },
      );
      expect([what, response.status]).toEqual([what, 401]);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
    }
    // nothing was granted
    expect(await platform.quota('alice')).toMatchObject({ balance: 10 });
  });

  it('accepts a key added to the JWKS after start, without a restart', async () => {
    const rotated = await generateKeyPair('RS256', { extractable: true });
    const kid = `rotated-${Date.now()}`;
    const jwks = JSON.parse(fs.readFileSync(files.jwks, 'utf8')) as { keys: JWK[] };
    const token = await signed(rotated.privateKey, { alg: 'RS256', kid });
    expect((await call('tasks', 'GET', '/tasks', { authorization: `Bearer ${token}` })).status).toBe(401);
    jwks.keys.push({ ...(await exportJWK(rotated.publicKey)), kid, alg: 'RS256', use: 'sig' });
    fs.writeFileSync(`${files.jwks}.tmp`, JSON.stringify(jwks, null, 2));
    fs.renameSync(`${files.jwks}.tmp`, files.jwks);
    expect((await call('tasks', 'GET', '/tasks', { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it("hides another user's task and generation (404), and refuses their quota, notifications and webhook (403)", async () => {
    // Given a task of the victim
    const { taskId } = (await platform.submit('victim', { secret: 'victim-only' })).body;
    await platform.settled(taskId);
    const mallory = await authAs('mallory');

    // When mallory reads and writes the victim's things with her own token
    expect((await call('tasks', 'GET', `/tasks/${taskId}`, mallory)).status).toBe(404);
    expect((await call('generation', 'GET', `/generations/${taskId}`, mallory)).status).toBe(404);
    expect((await call('tasks', 'GET', '/tasks?userId=victim', mallory)).status).toBe(403);
    expect((await call('quota', 'GET', '/quota/victim', mallory)).status).toBe(403);
    expect((await call('notification', 'GET', '/notifications?userId=victim', mallory)).status).toBe(403);
    const hijack = await call('notification', 'PUT', '/users/victim/webhook', mallory, { url: 'https://mallory.example/hook' });
    expect(hijack.status).toBe(403);
    const spend = await call(
      'tasks',
      'POST',
      '/tasks',
      { ...mallory, 'idempotency-key': 'spend-victim' },
      { userId: 'victim', reportType: 'summary', input: {} },
    );
    expect(spend.status).toBe(403);

    // Then nothing changed: no webhook for the victim, no second task, no second debit
    const notificationDb = new Client({ connectionString: platform.env.databaseUrl('notification') });
    await notificationDb.connect();
    try {
      expect((await notificationDb.query('select 1 from webhooks where user_id = $1', ['victim'])).rowCount).toBe(0);
    } finally {
      await notificationDb.end();
    }
    expect((await platform.get('tasks', '/tasks?userId=victim')).items).toHaveLength(1);
    expect(await platform.quota('victim')).toMatchObject({ debited: 1 });
    expect((await platform.get('tasks', '/tasks?userId=mallory')).items).toHaveLength(0);
  });

  it('lets an admin act on behalf of a user named in the body', async () => {
    const response = await call(
      'tasks',
      'POST',
      '/tasks',
      { ...(await asAdmin()), 'idempotency-key': 'on-behalf' },
      { userId: 'assisted', reportType: 'summary', input: {} },
    );
    expect(response.status).toBe(202);
    const { taskId, userId } = (await response.json()) as { taskId: string; userId: string };
    expect(userId).toBe('assisted');
    expect((await platform.settled(taskId)).userId).toBe('assisted');
  });

  it('lets a viewer read everything with inputs masked, and change nothing', async () => {
    const { taskId } = (await platform.submit('watched', { secret: 'private words' })).body;
    await platform.settled(taskId);
    const viewer = await authAs('auditor-jo', 'viewer');

    const task = (await (await call('tasks', 'GET', `/tasks/${taskId}`, viewer)).json()) as JsonBody;
    expect(task.input).toBe('***');
    expect(JSON.stringify(task)).not.toContain('private words');
    expect((await call('quota', 'GET', '/quota/watched', viewer)).status).toBe(200);
    expect((await call('tasks', 'GET', '/tasks?userId=watched', viewer)).status).toBe(200);

    expect((await call('tasks', 'POST', '/tasks', { ...viewer, 'idempotency-key': 'viewer-post' }, { reportType: 'summary', input: {} })).status).toBe(403);
    expect((await call('notification', 'PUT', '/users/watched/webhook', viewer, { url: 'https://example.com/hook' })).status).toBe(403);
    expect((await call('quota', 'POST', '/quota/watched/grants', { ...viewer, 'idempotency-key': 'viewer-grant' }, { amount: 5 })).status).toBe(403);
    expect((await platform.get('tasks', '/tasks?userId=auditor-jo')).items).toHaveLength(0);
    expect(await platform.quota('watched')).toMatchObject({ balance: 9 });
  });

  it('grants quota to admins only, once per Idempotency-Key, and never past what the events can carry', async () => {
    const grant = async (headers: Record<string, string>, amount: number, key = 'grant-1') =>
      call('quota', 'POST', '/quota/granted/grants', { ...headers, 'idempotency-key': key }, { amount });

    // a user granting themself quota
    expect((await grant(await authAs('granted'), 1000)).status).toBe(403);
    expect(await platform.quota('granted')).toMatchObject({ balance: 10 });

    // an admin's grant, repeated: one row, the same answer
    const admin = await asAdmin();
    const first = await grant(admin, 5);
    const again = await grant(admin, 5);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(await platform.quota('granted')).toMatchObject({ balance: 15 });

    // the same key with another amount
    expect((await grant(admin, 6)).status).toBe(422);
    // no key
    expect((await call('quota', 'POST', '/quota/granted/grants', admin, { amount: 1 })).status).toBe(400);

    // past 2^31 - 1, a balance QuotaDebited's int could not carry: given an account near it
    const quotaDb = new Client({ connectionString: platform.env.databaseUrl('quota') });
    await quotaDb.connect();
    try {
      // (a grant and the stored balance it moves, written as the grant path writes them)
      await quotaDb.query(`insert into quota_ledger (user_id, kind, amount) values ('granted', 'grant', 2147483000)`);
      await quotaDb.query(`update quota_accounts set balance = balance + 2147483000 where user_id = 'granted'`);
    } finally {
      await quotaDb.end();
    }
    const overflow = await grant(admin, 1000, 'overflow');
    expect(overflow.status).toBe(422);
    expect(((await overflow.json()) as { detail: string }).detail).toMatch(/past 2147483647/);
    expect(await platform.quota('granted')).toMatchObject({ balance: 2147483015 });
  });
});
