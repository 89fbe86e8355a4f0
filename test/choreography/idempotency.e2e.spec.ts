import { createKnex } from '@app/database';
import { Platform } from '../support/platform';
import { authAs } from '../support/tokens';

describe('POST /tasks under an Idempotency-Key', () => {
  const platform = new Platform();
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  const post = async (headers: Record<string, string>, body: string) =>
    fetch(`${platform.url('tasks')}/tasks`, { method: 'POST', headers: { 'content-type': 'application/json', ...(await authAs('u')), ...headers }, body });
  const getAs = async (userId: string, path: string) => fetch(`${platform.url('tasks')}${path}`, { headers: await authAs(userId) });

  it('answers 20 concurrent double-clicks with one task and one debit', async () => {
    // When the same request is sent 20 times at once
    const answers = await Promise.all(Array.from({ length: 20 }, () => platform.submit('clicker', { text: 'same' }, 'click-1')));

    // Then every answer is 202 with the same task; all but one say they were replayed
    const taskIds = new Set(answers.map((a) => a.body.taskId));
    expect(taskIds.size).toBe(1);
    expect(answers.every((a) => a.status === 202)).toBe(true);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect(answers.every((a) => a.headers.get('location') === `/tasks/${[...taskIds][0]}`)).toBe(true);
    // And the user is charged once and gets one report
    const task = await platform.settled([...taskIds][0]);
    expect(task.state).toBe('SUCCESS');
    expect(await platform.quota('clicker')).toMatchObject({ debited: 1, balance: 9 });
    expect(await platform.notifications('clicker')).toHaveLength(1);
  });

  it('refuses the same key with another body with 422, and keeps the same key apart for another user', async () => {
    await platform.submit('keeper', { text: 'first' }, 'key-a');
    const other = await platform.submit('keeper', { text: 'second' }, 'key-a');
    expect(other.status).toBe(422);
    expect(other.headers.get('content-type')).toContain('application/problem+json');
    expect(other.body).toMatchObject({ status: 422, detail: 'this Idempotency-Key was already used with a different request body' });
    // Keys are scoped per user
    expect((await platform.submit('someone-else', { text: 'second' }, 'key-a')).status).toBe(202);
  });

  it('takes an expired key over as a new request, with its own task, instead of replaying or refusing it', async () => {
    const first = await platform.submit('expirer', { text: 'first' }, 'key-old');
    await platform.settled(first.body.taskId as string);
    // When the key's claim has expired (as if its day had passed)
    const db = createKnex(platform.env.databaseUrl('tasks'), 1);
    try {
      await db('idempotency_keys')
        .where({ user_id: 'expirer', key: 'key-old' })
        .update({ expires_at: new Date(Date.now() - 1000) });
    } finally {
      await db.destroy();
    }
    // Then the same key with another body is a new task, not a 422, and not a replay of the first
    const second = await platform.submit('expirer', { text: 'second' }, 'key-old');
    expect(second.status).toBe(202);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.taskId).not.toBe(first.body.taskId);
    // And the key now replays the second task's answer
    const again = await platform.submit('expirer', { text: 'second' }, 'key-old');
    expect(again.body.taskId).toBe(second.body.taskId);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await platform.settled(second.body.taskId as string)).state).toBe('SUCCESS');
  });

  it.each([
    ['no key', {}, JSON.stringify({ userId: 'u', reportType: 'summary', input: {} }), 'the Idempotency-Key header is required'],
    [
      'an over-long key',
      { 'idempotency-key': 'k'.repeat(256) },
      JSON.stringify({ userId: 'u', reportType: 'summary', input: {} }),
      'the Idempotency-Key header must be at most 255 characters, got 256',
    ],
    ['no reportType', { 'idempotency-key': 'k1' }, JSON.stringify({ input: {} }), 'reportType is required and must be a non-empty string'],
    ['input not an object', { 'idempotency-key': 'k2' }, JSON.stringify({ userId: 'u', reportType: 'summary', input: [1] }), 'input must be a JSON object'],
    [
      'an unknown field',
      { 'idempotency-key': 'k3' },
      JSON.stringify({ userId: 'u', reportType: 'summary', input: {}, priority: 1 }),
      'the request body has unknown field(s): priority',
    ],
    [
      'a bad report type',
      { 'idempotency-key': 'k4' },
      JSON.stringify({ userId: 'u', reportType: 'Summary!', input: {} }),
      'reportType must match /^[a-z][a-z0-9_-]*$/, got "Summary!"',
    ],
    ['malformed JSON', { 'idempotency-key': 'k5' }, '{"userId": ', 'JSON'],
  ])('answers %s with 400 problem+json naming the problem, and writes nothing', async (_, headers, body, detail) => {
    const response = await post(headers as Record<string, string>, body);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(((await response.json()) as { detail: string }).detail).toContain(detail);
    expect(((await (await getAs('u', '/tasks')).json()) as { items: unknown[] }).items).toEqual([]);
  });

  it('answers 413 to a body over the limit', async () => {
    const response = await post({ 'idempotency-key': 'big' }, JSON.stringify({ userId: 'u', reportType: 'summary', input: { text: 'x'.repeat(70_000) } }));
    expect(response.status).toBe(413);
    expect(((await response.json()) as { detail: string }).detail).toBe('the request body is larger than the limit of 65536 bytes');
  });

  it('answers GET /tasks/:id with 400 for a malformed id and 404 for an unknown one; lists a user newest first, paginated', async () => {
    expect((await getAs('lister', '/tasks/not-a-uuid')).status).toBe(400);
    expect((await getAs('lister', '/tasks/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const ids: string[] = [];
    for (const i of [1, 2, 3]) ids.push((await platform.submit('lister', { i }, `list-${i}`)).body.taskId);
    const page1 = (await (await getAs('lister', '/tasks?limit=2')).json()) as { items: Array<{ taskId: string }>; nextOffset: number };
    const page2 = (await (await getAs('lister', `/tasks?userId=lister&limit=2&offset=${page1.nextOffset}`)).json()) as {
      items: Array<{ taskId: string }>;
      nextOffset: number | null;
    };
    expect([...page1.items, ...page2.items].map((t) => t.taskId)).toEqual([...ids].reverse());
    expect(page2.nextOffset).toBeNull();
  });
});
