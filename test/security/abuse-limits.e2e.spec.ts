import { Client } from 'pg';
import { RunningService } from '../../tools/run/service-process';
import { Platform } from '../support/platform';
import { authAs } from '../support/tokens';
import { waitFor } from '../support/wait-for';
import { setTimeout as sleep } from 'node:timers/promises';

/** OWASP API4: what one user may take of the platform, enforced across two instances of tasks. */
describe('abuse limits', () => {
  const platform = new Platform({
    USER_RATE_LIMIT: '2',
    USER_RATE_BURST: '3',
    USER_MAX_OPEN_TASKS: '4',
    GENERATION_CONCURRENCY: '4',
    GENERATION_MAX_PER_USER: '2',
    MODEL_TIMEOUT: '60s',
    GENERATION_RETRY_DELAYS: '',
  });
  let second: RunningService;
  let tasksDb: Client;
  const tasksUrls = () => [platform.url('tasks'), `http://127.0.0.1:${second.port}`];

  const post = async (base: string, userId: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `k-${Math.random()}`, ...(await authAs(userId)), ...headers },
      body,
    });
  const task = (input: Record<string, unknown>) => JSON.stringify({ reportType: 'summary', input });
  const rowsOf = async (userId: string) => Number((await tasksDb.query('select count(*) as n from tasks where user_id = $1', [userId])).rows[0].n);
  /** A well-behaved client: on a rate 429 it waits what Retry-After says and tries again. */
  async function submitPolitely(userId: string, input: Record<string, unknown>, base = platform.url('tasks')): Promise<Response> {
    for (;;) {
      const response = await post(base, userId, task(input));
      if (response.status !== 429) return response;
      const detail = ((await response.clone().json()) as { detail: string }).detail;
      if (!detail.includes('a second')) return response;
      await sleep(Number(response.headers.get('retry-after')) * 1000);
    }
  }

  beforeAll(async () => {
    await platform.start();
    second = await platform.startAnotherInstance('tasks', { MODEL_SIMULATION: 'off' });
    tasksDb = new Client({ connectionString: platform.env.databaseUrl('tasks') });
    await tasksDb.connect();
  });
  afterAll(async () => {
    await tasksDb.end();
    await platform.stop();
  });

  it('limits one user to the rate and burst across both instances, answering 429 with Retry-After and writing nothing', async () => {
    // When eight requests of one user hit both instances at once
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(tasksUrls()[i % 2], 'rapid', task({ i }))));

    // Then the burst (3) and at most one refilled token pass, the rest are refused by the shared bucket
    const accepted = answers.filter((a) => a.status === 202);
    const refused = answers.filter((a) => a.status === 429);
    expect(accepted.length + refused.length).toBe(8);
    expect(accepted.length).toBeGreaterThanOrEqual(3);
    expect(accepted.length).toBeLessThanOrEqual(4);
    for (const answer of refused) {
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await answer.json()) as { detail: string }).detail).toMatch(/more than 2 tasks a second/);
    }
    expect(await rowsOf('rapid')).toBe(accepted.length);
  });

  it("caps a user's unfinished tasks across both instances, and one user's hanging tasks hold only their share of generation", async () => {
    // Given four tasks of one user whose model calls hang, submitted through both instances
    const hanging: string[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await submitPolitely('hanger', { i, simulate: { hang: true } }, platform.url('tasks'));
      expect(response.status).toBe(202);
      hanging.push(((await response.json()) as { taskId: string }).taskId);
    }

    // When a fifth arrives, at either instance
    for (const base of tasksUrls()) {
      const fifth = await submitPolitely('hanger', { i: 5 }, base);
      // Then it is refused with 429 and Retry-After, and no task is written
      expect(fifth.status).toBe(429);
      expect(fifth.headers.get('retry-after')).toBe('5');
      expect(((await fifth.json()) as { detail: string }).detail).toMatch(/4 unfinished tasks/);
    }
    expect(await rowsOf('hanger')).toBe(4);

    // And generation runs only two of the hanging user's tasks (half of its four slots) ...
    await waitFor(
      async () => {
        const jobs = await Promise.all(hanging.map((id) => platform.generation(id)));
        return jobs.filter((j) => j.status === 'running').length === 2 && jobs.filter((j) => j.status === 'scheduled').length === 2;
      },
      { what: "two of the hanging user's attempts running and two waiting" },
    );
    // ... so another user's task still runs, and completes
    const { taskId } = (await platform.submit('patient', { text: 'still served' })).body;
    expect(await platform.settled(taskId)).toMatchObject({ state: 'SUCCESS' });
    const jobs = await Promise.all(hanging.map((id) => platform.generation(id)));
    expect(jobs.filter((j) => j.status === 'running')).toHaveLength(2);
  });

  it("gives a task's slot back when it ends, completed or failed: a user at the cap submits again", async () => {
    // Given a user who took all four slots with tasks that end: two succeed, two fail for good
    const ended: string[] = [];
    for (const simulate of [{}, {}, { permanentFailure: true }, { permanentFailure: true }]) {
      const response = await submitPolitely('returner', { simulate });
      expect(response.status).toBe(202);
      ended.push(((await response.json()) as { taskId: string }).taskId);
    }
    const states = await Promise.all(ended.map((id) => platform.settled(id)));
    expect(states.map((t) => t.state).sort()).toEqual(['COMPENSATED', 'COMPENSATED', 'SUCCESS', 'SUCCESS']);

    // When they submit four more, then every one is accepted, and a fifth open one is not
    for (let i = 0; i < 4; i++) expect((await submitPolitely('returner', { again: i, simulate: { hang: true } })).status).toBe(202);
    expect((await submitPolitely('returner', { again: 5 })).status).toBe(429);
    expect(await rowsOf('returner')).toBe(8);
  });

  it.each([
    ['a body that is not JSON (415)', 'text/plain', 'reportType=summary', 415, /must be application\/json/],
    ['a body over 64 KB (413)', 'application/json', task({ text: 'x'.repeat(70_000) }), 413, /larger than the limit/],
    ['an input 40 levels deep', 'application/json', task(JSON.parse(`${'{"a":'.repeat(39)}{}${'}'.repeat(39)}`)), 400, /at most 32 levels deep/],
    ['an input of 10,001 values', 'application/json', task({ rows: Array.from({ length: 10_000 }, () => 0) }), 400, /at most 10000 values/],
    ['a NUL in the input', 'application/json', '{"reportType":"summary","input":{"s":"a\\u0000b"}}', 400, /cannot be stored/],
    ['a lone surrogate in the input', 'application/json', '{"reportType":"summary","input":{"s":"\\ud800"}}', 400, /cannot be stored/],
    ['a lone surrogate in a key', 'application/json', '{"reportType":"summary","input":{"\\udc00":1}}', 400, /cannot be stored/],
  ])('refuses %s, writing nothing', async (_, contentType, body, status, detail) => {
    const user = `shape-${status}-${Math.random().toString(36).slice(2, 8)}`;
    const response = await post(platform.url('tasks'), user, body, { 'content-type': contentType });
    expect(response.status).toBe(status);
    expect(((await response.json()) as { detail: string }).detail).toMatch(detail);
    expect(await rowsOf(user)).toBe(0);
  });

  it('refuses text PostgreSQL cannot store in a path or a query with 400, on every service', async () => {
    const headers = await authAs('alice', 'admin');
    const answers = await Promise.all([
      fetch(`${platform.url('quota')}/quota/a%00b`, { headers }),
      fetch(`${platform.url('notification')}/notifications?userId=a%00b`, { headers }),
      fetch(`${platform.url('tasks')}/tasks?userId=%00`, { headers }),
      fetch(`${platform.url('notification')}/users/a%00b/webhook`, {
        method: 'PUT',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{"url":"https://example.com/h"}',
      }),
      fetch(`${platform.url('quota')}/quota/%ED%A0%80`, { headers }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400]);
  });

  it('refuses input.simulate where simulation is off (400), and honours it where it is on', async () => {
    const off = await post(tasksUrls()[1], 'simulator-user', task({ simulate: { permanentFailure: true } }));
    expect(off.status).toBe(400);
    expect(((await off.json()) as { detail: string }).detail).toMatch(/MODEL_SIMULATION=on/);
    expect(await rowsOf('simulator-user')).toBe(0);
    const on = await post(tasksUrls()[0], 'simulator-user', task({ simulate: { permanentFailure: true } }));
    expect(on.status).toBe(202);
  });
});
