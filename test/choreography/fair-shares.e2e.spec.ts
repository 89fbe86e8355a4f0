import { Platform } from '../support/platform';
import { asAdmin, authAs } from '../support/tokens';
import { waitFor } from '../support/wait-for';

const busyUsers = ['flood-1', 'flood-2'];
const allowance = 10;

/**
 * One user's backlog must not hold another's task. Two busy users fill their open-task allowances
 * with slow tasks and hold every generation slot between them but the one kept for newcomers (4 slots,
 * 2 each at most, 3 in all); a quiet user's task, and a quiet user's task that fails once and is
 * retried, are started ahead of the busy users' backlogs, which are still waiting when they complete.
 */
describe('fair shares of generation', () => {
  const platform = new Platform({
    GENERATION_CONCURRENCY: '4',
    GENERATION_MAX_PER_USER: '2',
    USER_MAX_OPEN_TASKS: String(allowance),
    GENERATION_RETRY_DELAYS: '200ms',
    MODEL_TIMEOUT: '30s',
  });
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  const shareOf = (userId: string) => platform.get('generation', `/users/${userId}/share`);
  const backlog = async () => (await Promise.all(busyUsers.map(shareOf))).reduce((sum, share) => sum + share.due, 0);
  async function timeToSettle(userId: string, input: Record<string, unknown>): Promise<{ ms: number; state: string }> {
    const started = Date.now();
    const { taskId } = (await platform.submit(userId, input)).body;
    const task = await platform.settled(taskId, 120_000);
    return { ms: Date.now() - started, state: task.state };
  }

  it("starts a quiet user's task, and a quiet user's retry, ahead of a flood of other users' backlogs", async () => {
    // Given the quiet users' times on an idle platform
    const idle = await timeToSettle('quiet-idle', { simulate: { latencyMs: 300 } });
    const idleRetry = await timeToSettle('quiet-idle', { simulate: { latencyMs: 300, transientFailures: 1 } });
    expect([idle.state, idleRetry.state]).toEqual(['SUCCESS', 'SUCCESS']);

    // When two busy users fill their allowances with slow tasks, holding every slot but the one kept for newcomers
    for (const userId of busyUsers) {
      for (let i = 0; i < allowance; i++) expect((await platform.submit(userId, { i, simulate: { latencyMs: 4000 } })).status).toBe(202);
    }
    const running = async () => (await Promise.all(busyUsers.map(shareOf))).reduce((sum, share) => sum + share.running, 0);
    await waitFor(async () => (await running()) === 3, { what: 'the busy users holding three slots' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await running()).toBe(3);
    expect(await backlog()).toBeGreaterThan(10);

    // Then a quiet user's task and a quiet user's retried task complete while the busy backlogs still wait
    const [quiet, retried] = await Promise.all([
      timeToSettle('quiet', { simulate: { latencyMs: 300 } }),
      timeToSettle('quiet-retried', { simulate: { latencyMs: 300, transientFailures: 1 } }),
    ]);
    expect([quiet.state, retried.state]).toEqual(['SUCCESS', 'SUCCESS']);
    expect(await backlog()).toBeGreaterThan(0);
    // (The slot kept for newcomers takes them at once, one after the other; without it a first attempt
    // waits for a slow task to end, 4 s at most, and a retry perhaps for one more; the backlogs take 20 s.)
    process.stdout.write(`fair shares: quiet ${quiet.ms} ms (idle ${idle.ms}), retried ${retried.ms} ms (idle ${idleRetry.ms})\n`);
    expect(quiet.ms).toBeLessThan(idle.ms + 3_000);
    expect(retried.ms).toBeLessThan(idleRetry.ms + 3_000);
  });

  it('lets an admin set a share, idempotently and on the record, and nobody else', async () => {
    const put = async (headers: Record<string, string>, maxRunning: number) =>
      fetch(`${platform.url('generation')}/users/flood-1/share`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ maxRunning }),
      });
    // A plain user, even the one concerned, cannot raise their share
    expect((await put(await authAs('flood-1'), 50)).status).toBe(403);
    expect((await shareOf('flood-1')).set).toBe(false);

    // Nor does an admin's malformed request change anything: out of range, not a number, an extra
    // field, a user id past 128 characters — each a 400, no share set, no change on the record
    const raw = async (path: string, body: string) =>
      fetch(`${platform.url('generation')}${path}`, { method: 'PUT', headers: { 'content-type': 'application/json', ...(await asAdmin()) }, body });
    for (const body of ['{"maxRunning":0}', '{"maxRunning":1001}', '{"maxRunning":"8"}', '{"maxRunning":2,"by":"x"}', '[]', 'null']) {
      expect((await raw('/users/flood-1/share', body)).status).toBe(400);
    }
    expect((await raw(`/users/${'u'.repeat(200)}/share`, '{"maxRunning":2}')).status).toBe(400);
    expect((await shareOf('flood-1')).set).toBe(false);
    expect((await platform.get('generation', '/users/flood-1/share/changes')).items).toEqual([]);

    // An admin sets it to one, twice: one change on the record
    expect((await put(await asAdmin(), 1)).status).toBe(200);
    expect((await put(await asAdmin(), 1)).status).toBe(200);
    const changes = await platform.get('generation', '/users/flood-1/share/changes');
    expect(changes.items).toHaveLength(1);
    expect(changes.items[0]).toMatchObject({ maxRunningBefore: null, maxRunning: 1 });

    // And the user runs no more than that once their running attempts end
    await waitFor(async () => (await shareOf('flood-1')).running === 1, { what: 'flood-1 down to one attempt', timeoutMs: 30_000 });
    const share = await shareOf('flood-1');
    expect(share).toMatchObject({ maxRunning: 1, set: true });
    expect(share.running).toBeLessThanOrEqual(1);
    const busiest = await platform.get('generation', '/users/busiest');
    expect(busiest.items.map((s: { userId: string }) => s.userId)).toContain('flood-2');
  });
});
