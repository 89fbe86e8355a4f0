import type { Browser, Page } from 'playwright-core';
import { Client } from 'pg';
import { launchBrowser, screenshot, signIn } from '../support/browser';
import { Platform } from '../support/platform';
import { authAs, tokenFor } from '../support/tokens';
import { waitFor } from '../support/wait-for';

interface Listed {
  items: Array<{ taskId: string; state: string; errorCode: string | null }>;
}

/** Charts from the stack's Prometheus, search with counts, and cancel by filter (dry run, then a throttled run), in Debian's Chromium on the real platform. */
describe('console: the platform over time, tasks found by filter, and cancelled many at once', () => {
  // Model calls hang for real, so that tasks stay open long enough to be cancelled.
  const platform = new Platform({ MODEL_TIMEOUT: '60s' });
  let consoleUrl: string;
  let browser: Browser;
  let admin: Page;
  const open: string[] = [];
  let ended: string;
  let elsewhere: string;
  beforeAll(async () => {
    await platform.start();
    consoleUrl = await platform.startConsole();
    browser = await launchBrowser();
    admin = await (await browser.newContext()).newPage();
    await signIn(admin, consoleUrl, await tokenFor('ops', 'admin'));
    for (let i = 0; i < 3; i++) open.push((await platform.submit('bulk-a', { simulate: { hang: true } })).body.taskId as string);
    ended = (await platform.submit('bulk-a', {})).body.taskId as string;
    elsewhere = (await platform.submit('bulk-b', { simulate: { hang: true } })).body.taskId as string;
    expect((await platform.settled(ended)).state).toBe('SUCCESS');
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await platform.stop();
  });

  it('charts a run of tasks just made, from Prometheus (server-side), drawn by uPlot under the content policy', async () => {
    const violations: string[] = [];
    admin.on('console', (message) => void (/Content Security Policy/i.test(message.text()) && violations.push(message.text())));
    // A counter's first sample has no rate: tasks end while Prometheus (every 5 s) already scrapes the series.
    for (let i = 0; i < 6; i++) {
      await platform.settled((await platform.submit('chart-user', {})).body.taskId as string);
      await new Promise((resolve) => setTimeout(resolve, 2500));
    }
    const points = async () => {
      await admin.goto(`${consoleUrl}/?range=15m`);
      const series = JSON.parse((await admin.getAttribute('[data-chart="outcomes"]', 'data-series'))!) as {
        names: string[];
        columns: Array<Array<number | null>>;
      };
      const success = series.names.indexOf('TaskCompleted') + 1;
      return success > 0 ? series.columns[success].filter((v) => v !== null && v > 0).length : 0;
    };
    await waitFor(async () => (await points()) > 0, { what: 'a point of the tasks just made in the outcomes chart', timeoutMs: 60_000 });
    expect(await admin.locator('[data-chart="outcomes"] canvas').count()).toBe(1);
    expect(await admin.locator('.ranges a.on').textContent()).toBe('15m');
    expect(await admin.locator('[data-chart]').count()).toBe(7);
    expect(violations).toEqual([]);
    await screenshot(admin, 'console-overview-charts');
  });

  it("draws a retried and refunded task's waterfall: each attempt, its retry's wait, then the refund and the outcome, in order", async () => {
    const taskId = (await platform.submit('waterfall-user', { simulate: { transientFailures: 100 } })).body.taskId as string;
    expect((await platform.settled(taskId)).state).toBe('COMPENSATED');
    await admin.goto(`${consoleUrl}/tasks/${taskId}`);
    const bars = await admin
      .locator('svg.waterfall g[data-bar]')
      .evaluateAll((gs) => gs.map((g) => `${g.getAttribute('data-kind')} ${g.querySelector('text')!.textContent}`));
    const attempts = bars.filter((b) => / · attempt \d/.test(b));
    expect(attempts.length).toBeGreaterThan(1);
    const expected = [
      'wait quota · to quota: outbox and topic',
      'wait generation · to generation: topic and a free slot',
      ...attempts.flatMap((a, i) => (i < attempts.length - 1 ? [a, `wait generation · retry ${i + 1}: backoff`] : [a])),
      'wait quota · refund: to quota',
      'wait tasks · outcome: to tasks',
    ];
    expect(bars.slice(0, expected.length)).toEqual(expected);
    attempts.forEach((a, i) => expect(a).toBe(`work generation · attempt ${i + 1}: ${i < attempts.length - 1 ? 'retry' : 'failed'} (MODEL_UNAVAILABLE)`));
    expect(await admin.locator('main table').last().textContent()).toContain('QuotaRefunded'); // the event list is kept under it
    await screenshot(admin, 'console-task-waterfall');
  });

  it("shows exactly the filter's tasks, as the tasks service lists them, with counts per state", async () => {
    await admin.goto(`${consoleUrl}/tasks?userId=bulk-a`);
    const shown = await admin.locator('main table tbody tr td:first-child a').allTextContents();
    const listed = await platform.get<Listed>('tasks', '/tasks?userId=bulk-a&limit=100');
    expect(shown).toEqual(listed.items.map((t) => t.taskId));
    expect(shown.sort()).toEqual([...open, ended].sort());
    expect(await admin.textContent('[data-state="SUCCESS"]')).toBe('1');
    expect(await admin.textContent('#state-counts')).toContain('4 task(s)');
    await screenshot(admin, 'console-task-search');
  });

  it('cancels, after a dry run that names them, the open tasks the filter matches and no others', async () => {
    await admin.goto(`${consoleUrl}/tasks?userId=bulk-a`);
    await admin.click('#bulk-cancel');
    expect(await admin.textContent('#planned-count')).toBe('3');
    expect((await admin.locator('main table tbody tr td a').allTextContents()).sort()).toEqual([...open].sort());
    // The dry run changed nothing.
    for (const taskId of open) expect((await platform.task(taskId)).state).not.toBe('CANCELLED');
    await screenshot(admin, 'console-bulk-cancel-dry-run');

    // Rows held locked past the tasks service's lock timeout as the run starts: its cancels are answered busy at first
    const tasksDb = new Client({ connectionString: platform.env.databaseUrl('tasks') });
    await tasksDb.connect();
    await tasksDb.query('begin');
    await tasksDb.query('select 1 from tasks where task_id = any($1) for update', [open]);
    await admin.click('#run-bulk-cancel');
    await new Promise((resolve) => setTimeout(resolve, 3500));
    await tasksDb.query('commit');
    await tasksDb.end();
    await waitFor(
      async () => {
        await admin.reload();
        return (await admin.textContent('#bulk-state')) === 'finished';
      },
      { what: 'the bulk cancel to finish' },
    );
    // A busy answer is asked again, never counted as a task that had ended
    expect(await admin.textContent('#bulk-cancelled')).toBe('3');
    expect(await admin.textContent('#bulk-ended')).toBe('0');
    expect(await admin.textContent('#bulk-failed')).toBe('0');
    for (const taskId of open) expect((await platform.task(taskId)).state).toBe('CANCELLED');
    expect((await platform.task(ended)).state).toBe('SUCCESS');
    expect((await platform.task(elsewhere)).state).not.toBe('CANCELLED');
    const byCode = await platform.get<Listed>('tasks', '/tasks?userId=bulk-a&errorCode=CANCELLED');
    expect(byCode.items.map((t) => t.taskId).sort()).toEqual([...open].sort());
    expect(platform.service('tasks').output()).toMatch(
      /audit: ops finished run [\w-]+: bulk-cancel of 3 item\(s\) matching \W{1,3}userId=bulk-a\W{1,3}: 3 cancelled, 0 failed/,
    );
  });

  it('keeps a bulk cancel going when the tasks instance working it is killed, each task cancelled once, and any console shows it', async () => {
    const doomed: string[] = [];
    for (let i = 0; i < 3; i++) doomed.push((await platform.submit('bulk-c', { simulate: { hang: true } })).body.taskId as string);
    await admin.goto(`${consoleUrl}/tasks?userId=bulk-c`);
    await admin.click('#bulk-cancel');
    await admin.fill('input[name=rate]', '1');
    await admin.click('#run-bulk-cancel');
    const runId = new URL(admin.url()).pathname.split('/').at(-1)!;
    const run = () =>
      platform.get<{ state: string; done: number; outcomes: Record<string, number>; audit: Array<{ what: string }> }>('tasks', `/operator-runs/${runId}`);
    await waitFor(async () => (await run()).done >= 1, { what: 'the first cancel of the run' });
    await platform.kill('tasks');
    await platform.startApp('tasks');
    // Its lease lapses, and the restarted instance takes it up where it was
    await waitFor(async () => (await run()).state === 'finished', { what: 'the run to finish after the restart', timeoutMs: 60_000 });
    expect(await run()).toMatchObject({ done: 3, outcomes: { cancelled: 3 } });
    expect((await run()).audit.map((a) => a.what)).toEqual(['planned', 'started', 'resumed', 'finished']);
    for (const taskId of doomed) {
      const task = await platform.task(taskId);
      expect(task.state).toBe('CANCELLED');
      expect((task.timeline as Array<{ eventType: string }>).filter((e) => e.eventType === 'TaskCancelled')).toHaveLength(1);
    }
    // Another console, which never saw the run start, shows it as it is
    const second = await platform.startAnotherInstance('console');
    const elsewhere = await (await browser.newContext()).newPage();
    const secondUrl = `http://127.0.0.1:${second.port}`;
    await signIn(elsewhere, secondUrl, await tokenFor('ops', 'admin'));
    await elsewhere.goto(`${secondUrl}/bulk/${runId}`);
    expect(await elsewhere.textContent('#bulk-state')).toBe('finished');
    expect(await elsewhere.textContent('#bulk-cancelled')).toBe('3');
    expect(await elsewhere.locator('tr[data-audit="resumed"]').count()).toBe(1);
  }, 120_000);

  it('lets a viewer search but not cancel: no button, and the forms posted anyway are refused', async () => {
    const viewer = await (await browser.newContext()).newPage();
    await signIn(viewer, consoleUrl, await tokenFor('watcher', 'viewer'));
    await viewer.goto(`${consoleUrl}/tasks?userId=bulk-b`);
    expect(await viewer.locator('main table tbody tr').count()).toBe(1);
    expect(await viewer.locator('#bulk-cancel').count()).toBe(0);
    const csrf = await viewer.locator('nav input[name=_csrf]').getAttribute('value');
    const forged = await viewer.request.post(`${consoleUrl}/bulk/cancel`, { form: { _csrf: csrf!, filter: 'userId=bulk-b' }, maxRedirects: 0 });
    expect(forged.status()).toBe(403);
    // Without the session's CSRF token, an admin's own session is refused too.
    const noToken = await admin.request.post(`${consoleUrl}/bulk/cancel`, { form: { filter: 'userId=bulk-b' }, maxRedirects: 0 });
    expect(noToken.status()).toBe(403);
    expect((await platform.task(elsewhere)).state).not.toBe('CANCELLED');
  });

  it("refuses operator runs to anyone but an admin, and hostile bodies and ids, planning and cancelling nothing, a neighbour's task unslowed", async () => {
    const tasksDb = new Client({ connectionString: platform.env.databaseUrl('tasks') });
    await tasksDb.connect();
    const runs = async () => Number((await tasksDb.query('select count(*) from operator_runs')).rows[0].count);
    const before = await runs();
    const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
      (
        await fetch(`${platform.url('tasks')}${path}`, {
          method,
          headers: { ...headers, 'content-type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        })
      ).status;
    const [owner, viewer, ops] = [await authAs('bulk-b'), await authAs('watcher', 'viewer'), await authAs('ops', 'admin')];
    const unknown = '00000000-0000-4000-8000-000000000000';
    // The tasks' own user, a viewer: no plan, no start, and a user reads none
    expect(await call('POST', '/operator-runs/bulk-cancels', owner, { filter: 'userId=bulk-b' })).toBe(403);
    expect(await call('POST', '/operator-runs/bulk-cancels', viewer, { filter: 'userId=*' })).toBe(403);
    expect(await call('POST', `/operator-runs/${unknown}/start`, owner, { rate: 1 })).toBe(403);
    expect(await call('GET', '/operator-runs', owner)).toBe(403);
    expect(await call('GET', '/operator-runs', viewer)).toBe(200);
    // An admin's malformed bodies and ids
    for (const body of [{}, { filter: 'x'.repeat(5000) }, { filter: 'userId=*', extra: 1 }, { filter: 'state=NOPE' }, { filter: 42 }, []]) {
      expect(await call('POST', '/operator-runs/bulk-cancels', ops, body)).toBe(400);
    }
    for (const rate of [0, 101, 'fast', 1.5]) expect(await call('POST', `/operator-runs/${unknown}/start`, ops, { rate })).toBe(400);
    expect(await call('POST', `/operator-runs/${unknown}/start`, ops, { rate: 1 })).toBe(404);
    expect(await call('POST', "/operator-runs/1' or '1'='1/start", ops, { rate: 1 })).toBe(400);
    expect(await call('GET', '/operator-runs/..%2F..%2Fetc', ops)).toBe(400);
    // And the console's re-drive pages with ids that are none
    expect((await admin.request.get(`${consoleUrl}/dead-letters/redrives/tasks/not-a-request`)).status()).toBe(404);
    expect((await admin.request.get(`${consoleUrl}/dead-letters/redrives/nobody/${unknown}/progress`)).status()).toBe(404);
    // Then nothing was planned or cancelled, and a neighbour's task ran as ever
    expect(await runs()).toBe(before);
    await tasksDb.end();
    expect((await platform.task(elsewhere)).state).not.toBe('CANCELLED');
    expect((await platform.settled((await platform.submit('bulk-neighbour', {})).body.taskId as string)).state).toBe('SUCCESS');
  });
});
