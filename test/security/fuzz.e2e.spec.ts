import fc from 'fast-check';
import { Client } from 'pg';
import { Platform } from '../support/platform';
import { asAdmin, authAs } from '../support/tokens';

type App = 'tasks' | 'quota' | 'generation' | 'notification';
interface FuzzRequest {
  app: App;
  method: string;
  path: string;
  auth: 'none' | 'garbage' | 'user-a' | 'user-b' | 'viewer' | 'admin';
  key?: string;
  contentType?: string;
  body?: string;
}

const seed = Number(process.env.FUZZ_SEED ?? 20261129);
const runs = Number(process.env.FUZZ_RUNS ?? 5000);

/** Path segments and query values a hostile caller would try, beside ordinary ones. */
const segment = fc.oneof(
  fc.constantFrom(
    'fuzz-a',
    'fuzz-b',
    'test-admin',
    '00000000-0000-4000-8000-000000000000',
    '%00',
    'a%00b',
    '%ED%A0%80',
    '%F0%9F%98%80',
    '..%2F..%2Fetc',
    '%25',
    '.',
    'x'.repeat(300),
  ),
  fc.uuid(),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);
const query = fc.oneof(
  fc.constant(''),
  segment.map((s) => `?userId=${s}`),
  fc.constantFrom('?userId[a]=b', '?userId=a&userId=b', '?limit=-1', '?limit=1e9', '?offset=abc', '?limit=%00', '?userId='),
);
const input = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.constantFrom('{"s":"\\u0000"}', '{"s":"\\ud800"}', '{"\\udc00":1}', `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`, '{"simulate":{"hang":true}}'),
);
const taskBody = fc.record({
  userId: fc.option(fc.constantFrom('fuzz-a', 'fuzz-b', 'victim', '', 'a\u0000'), { nil: undefined }),
  reportType: fc.constantFrom('summary', 'Bad!', ''),
  input,
});
const body = fc.oneof(
  taskBody.map(
    (b) =>
      `{${b.userId === undefined ? '' : `"userId":${JSON.stringify(b.userId)},`}"reportType":${JSON.stringify(b.reportType)},"input":${typeof b.input === 'string' ? b.input : JSON.stringify(b.input)}}`,
  ),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.record({ amount: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(2 ** 40)) }).map((v) => JSON.stringify(v)),
  fc.record({ url: fc.oneof(fc.webUrl(), fc.string(), fc.constantFrom('http://127.0.0.1:1/x', 'ftp://x', 'https://[::1]/')) }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 50 }),
  fc.constant(undefined),
);
const route = fc.oneof(
  fc.constant<[App, string, string]>(['tasks', 'POST', '/tasks']),
  segment.map<[App, string, string]>((s) => ['tasks', 'GET', `/tasks/${s}`]),
  query.map<[App, string, string]>((q) => ['tasks', 'GET', `/tasks${q}`]),
  segment.map<[App, string, string]>((s) => ['quota', 'GET', `/quota/${s}`]),
  segment.map<[App, string, string]>((s) => ['quota', 'POST', `/quota/${s}/grants`]),
  segment.map<[App, string, string]>((s) => ['generation', 'GET', `/generations/${s}`]),
  query.map<[App, string, string]>((q) => ['notification', 'GET', `/notifications${q}`]),
  segment.map<[App, string, string]>((s) => ['notification', 'PUT', `/users/${s}/webhook`]),
  fc
    .tuple(fc.constantFrom<App>('tasks', 'quota', 'generation', 'notification'), fc.constantFrom('DELETE', 'PATCH', 'PUT', 'POST', 'GET', 'OPTIONS'), segment)
    .map<[App, string, string]>(([a, m, s]) => [a, m, `/${s}`]),
);
const anything: fc.Arbitrary<FuzzRequest> = fc
  .record({
    route,
    auth: fc.constantFrom<FuzzRequest['auth']>('none', 'garbage', 'user-a', 'user-a', 'user-b', 'viewer', 'admin'),
    key: fc.option(
      fc.oneof(fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 300 }), fc.constantFrom('k1', 'k2', 'k3')),
      { nil: undefined },
    ),
    contentType: fc.option(
      fc.constantFrom(
        'application/json',
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/merge-patch+json',
        'application/json; charset=utf-16',
      ),
      { nil: undefined },
    ),
    body,
  })
  .map(({ route: [app, method, path], ...rest }) => ({ app, method, path, ...rest, body: ['GET', 'OPTIONS'].includes(method) ? undefined : rest.body }));

/** Requests that get past the outer checks, so the accepting paths (and their writes) are fuzzed too. */
const almostValid: fc.Arbitrary<FuzzRequest> = fc.oneof(
  fc.record({ userId: fc.constantFrom(undefined, 'fuzz-a', 'fuzz-b'), input, key: fc.uuid() }).map(({ userId, input: given, key }) => ({
    app: 'tasks' as const,
    method: 'POST',
    path: '/tasks',
    auth: 'user-a' as const,
    key,
    contentType: 'application/json',
    body: `{${userId ? `"userId":"${userId}",` : ''}"reportType":"summary","input":${typeof given === 'string' ? given : JSON.stringify(given)}}`,
  })),
  fc
    .record({ user: segment, amount: fc.oneof(fc.integer({ min: -5, max: 2_000_000 }), fc.constant(2 ** 31)), key: fc.constantFrom('g1', 'g2', 'g3') })
    .map(({ user, amount, key }) => ({
      app: 'quota' as const,
      method: 'POST',
      path: `/quota/${user}/grants`,
      auth: 'admin' as const,
      key,
      contentType: 'application/json',
      body: JSON.stringify({ amount }),
    })),
  fc
    .record({ user: fc.constantFrom('fuzz-a', 'fuzz-b'), url: fc.oneof(fc.webUrl(), fc.constantFrom('http://127.0.0.1:1/x', 'https://example.com/hook')) })
    .map(({ user, url }) => ({
      app: 'notification' as const,
      method: 'PUT',
      path: `/users/${user}/webhook`,
      auth: 'user-a' as const,
      contentType: 'application/json',
      body: JSON.stringify({ url }),
    })),
);
const request = fc.oneof({ arbitrary: anything, weight: 3 }, { arbitrary: almostValid, weight: 1 });

/**
 * A generated fuzz run over every endpoint, method, header and body shape: no answer is a 5xx, and
 * nothing a refused request sent is written (tasks, grants and webhooks are counted against the
 * requests that were accepted).
 */
describe('the HTTP surface under generated hostile input', () => {
  const platform = new Platform({ USER_RATE_LIMIT: '100000', USER_RATE_BURST: '100000', USER_MAX_OPEN_TASKS: '100000' });
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  it(`answers ${runs} generated requests (seed ${seed}) without a 5xx, writing only what it accepted`, async () => {
    const headersFor: Record<FuzzRequest['auth'], Record<string, string>> = {
      none: {},
      garbage: { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' },
      'user-a': await authAs('fuzz-a'),
      'user-b': await authAs('fuzz-b'),
      viewer: await authAs('fuzz-viewer', 'viewer'),
      admin: await asAdmin(),
    };
    const requests = fc.sample(request, { numRuns: runs, seed });
    const serverErrors: string[] = [];
    const acceptedTasks = new Set<string>();
    const acceptedGrants = new Set<string>();
    const acceptedWebhooks = new Set<string>();
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < requests.length; i = next++) {
        const r = requests[i];
        const response = await fetch(`${platform.url(r.app)}${r.path}`, {
          method: r.method,
          headers: { ...headersFor[r.auth], ...(r.key ? { 'idempotency-key': r.key } : {}), ...(r.contentType ? { 'content-type': r.contentType } : {}) },
          body: r.body,
        });
        const text = await response.text();
        if (response.status >= 500) serverErrors.push(`${response.status} ${r.method} ${r.app}${r.path} ${JSON.stringify(r)} -> ${text.slice(0, 200)}`);
        if (r.method === 'POST' && r.path === '/tasks' && response.status === 202) acceptedTasks.add((JSON.parse(text) as { taskId: string }).taskId);
        if (r.method === 'POST' && r.path.endsWith('/grants') && response.status === 201) acceptedGrants.add(`${r.path}|${r.key}`);
        if (r.method === 'PUT' && r.path.endsWith('/webhook') && response.status === 200) acceptedWebhooks.add(r.path);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));

    expect(serverErrors.slice(0, 5)).toEqual([]);
    const count = async (service: 'tasks' | 'quota' | 'notification', sql: string) => {
      const db = new Client({ connectionString: platform.env.databaseUrl(service) });
      await db.connect();
      try {
        return Number((await db.query(sql)).rows[0].n);
      } finally {
        await db.end();
      }
    };
    expect(await count('tasks', 'select count(*) as n from tasks')).toBe(acceptedTasks.size);
    expect(await count('quota', "select count(*) as n from quota_ledger where kind = 'grant' and grant_key is not null")).toBe(acceptedGrants.size);
    expect(await count('notification', 'select count(*) as n from webhooks')).toBe(acceptedWebhooks.size);
    // the run reached the accepting paths too
    expect([acceptedTasks.size, acceptedGrants.size, acceptedWebhooks.size].every((n) => n > 0)).toBe(true);
  });
});
