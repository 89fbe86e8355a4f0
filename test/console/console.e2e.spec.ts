import { randomUUID } from 'node:crypto';
import { defaults } from '@app/config';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loadSchema, newEvent } from '@app/events';
import { EventCodec } from '@app/kafka';
import { launchBrowser, screenshot, signIn } from '../support/browser';
import { consumerGroupsStartingWith } from '../support/consumer-groups';
import { Platform } from '../support/platform';
import { registerSchema as register } from '../support/registry-authorization';
import { authAs, tokenFor } from '../support/tokens';
import { waitFor } from '../support/wait-for';

/** The operator console in Debian's Chromium, on the real platform. */
describe('operator console', () => {
  // Model calls hang for real (no 500 ms timeout), so that a task stays running long enough to cancel.
  const platform = new Platform({ MODEL_TIMEOUT: '60s' });
  let consoleUrl: string;
  let browser: Browser;
  let admin: BrowserContext;
  let adminPage: Page;
  beforeAll(async () => {
    await platform.start();
    consoleUrl = await platform.startConsole();
    browser = await launchBrowser();
    admin = await browser.newContext();
    adminPage = await admin.newPage();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await platform.stop();
  });

  it('signs an admin in with a pasted token, kept in an HttpOnly, SameSite=Strict cookie', async () => {
    await adminPage.goto(`${consoleUrl}/tasks`);
    expect(adminPage.url()).toContain('/sign-in');
    await adminPage.fill('textarea[name=token]', 'not-a-token');
    await adminPage.click('button:has-text("Sign in")');
    expect(await adminPage.textContent('main')).toContain('That token is not accepted');

    await signIn(adminPage, consoleUrl, await tokenFor('ops', 'admin'));
    expect(await adminPage.textContent('h1')).toBe('Overview');
    expect(await adminPage.textContent('nav')).toContain('ops (admin)');
    const cookie = (await admin.cookies()).find((c) => c.name === 'console_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it("shows a compensated task's whole timeline across the four services, with its refund", async () => {
    const taskId = (await platform.submit('console-user', { simulate: { permanentFailure: true }, note: 'secret plans' })).body.taskId as string;
    expect((await platform.settled(taskId)).state).toBe('COMPENSATED');

    await adminPage.goto(`${consoleUrl}/tasks`);
    await adminPage.fill('input[name=userId]', 'console-user');
    await adminPage.selectOption('select[name=state]', 'COMPENSATED');
    await adminPage.click('button:has-text("Search")');
    await adminPage.click(`a:has-text("${taskId}")`);
    expect(await adminPage.textContent('#task-state')).toBe('COMPENSATED');
    const timeline = (await adminPage.textContent('main'))!;
    for (const step of [
      'TaskAccepted',
      'QuotaDebited',
      'attempt 1 started',
      'attempt 1 failed',
      'GenerationFailed',
      'ledger: debit',
      'QuotaRefunded',
      'ledger: refund',
      'TaskFailed',
      'notification (TaskFailed) by inbox',
    ]) {
      expect(timeline).toContain(step);
    }
    expect(await adminPage.textContent('#task-input')).toContain('secret plans');
    expect(await adminPage.getAttribute('a:has-text("in Zipkin")', 'href')).toContain(encodeURIComponent(`taskId=${taskId}`));
    await screenshot(adminPage, 'task-page');

    await adminPage.click('a:has-text("console-user")');
    expect(await adminPage.textContent('main')).toContain('refund');
  });

  it('cancels a running task from its page, and shows the cancel in its timeline', async () => {
    const taskId = (await platform.submit('console-canceller', { simulate: { hang: true } })).body.taskId as string;
    await waitFor(async () => (await platform.task(taskId)).state === 'RUNNING', { what: 'the task to run' });

    await adminPage.goto(`${consoleUrl}/tasks/${taskId}`);
    await adminPage.click('#cancel-task');

    // The tasks service decided at once: the page it comes back to shows the task cancelled, no button left
    expect(adminPage.url()).toBe(`${consoleUrl}/tasks/${taskId}`);
    expect(await adminPage.textContent('#task-state')).toBe('CANCELLED');
    const timeline = (await adminPage.textContent('main'))!;
    expect(timeline).toContain('TaskCancelled');
    expect(timeline).toContain('cancelledBy=ops');
    expect(timeline).toContain('errorCode=CANCELLED');
    expect(await adminPage.locator('#cancel-task').count()).toBe(0);
    await waitFor(async () => (await platform.quota('console-canceller')).refunded === 1, { what: 'the refund' });
  });

  it('sends the security headers helmet sets, with the console’s own content policy', async () => {
    const headers = Object.fromEntries((await fetch(`${consoleUrl}/sign-in`)).headers);
    expect(headers).toMatchObject({
      // Only what the console serves itself loads: no inline script, no other origin; forms post here; nothing frames it.
      'content-security-policy':
        "default-src 'none';style-src 'self';script-src 'self';connect-src 'self';img-src 'self';form-action 'self';frame-ancestors 'none';base-uri 'none'",
      'x-frame-options': 'DENY', // the same, for browsers that know no frame-ancestors
      'x-content-type-options': 'nosniff', // a response is what its content type says, never sniffed into a script
      'referrer-policy': 'same-origin', // task ids and user ids in the console's URLs never reach another site
      'cache-control': 'no-store', // pages that show users' data are kept by no cache
      'cross-origin-opener-policy': 'same-origin', // a window of another site keeps no handle on a console tab
      'cross-origin-resource-policy': 'same-origin', // another site cannot embed the console's responses
      'origin-agent-cluster': '?1', // the console's pages get an agent cluster (a process) of their own
      'x-dns-prefetch-control': 'off', // hosts named in a page are not looked up before they are followed
      'x-permitted-cross-domain-policies': 'none', // no Flash or PDF cross-domain policy grants anything
      'x-download-options': 'noopen', // old IE: a download is never opened in the console's context
      'x-xss-protection': '0', // the old XSS auditors are off (they could be abused to leak); the policy above protects
    });
    // Browsers keep to HTTPS once the console is served over it (ignored over plain http, as here).
    expect(headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(headers['x-powered-by']).toBeUndefined(); // the framework is not advertised
  });

  it('refuses an action without the CSRF token of the session', async () => {
    const before = await platform.quota('csrf-target');
    const forged = await adminPage.request.post(`${consoleUrl}/quota/csrf-target/grants`, { form: { amount: '50' }, maxRedirects: 0 });
    expect(forged.status()).toBe(403);
    expect(await forged.text()).toContain('CSRF');
    expect((await platform.quota('csrf-target')).balance).toBe(before.balance);
  });

  it('groups dead letters, shows a hostile payload as text, and re-drives a poison message once its schema is registered', async () => {
    const codec = new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix);
    const origin = { taskId: randomUUID(), userId: 'poisoned', correlationId: randomUUID(), causationId: null };
    const accepted = newEvent('TaskAccepted', { idempotencyKey: null, reportType: 'summary', input: '{}' }, origin, 'tasks');
    const body = (await codec.encode(accepted)).subarray(5);
    // The next schema id the registry will give, and a value framed with it: no consumer can read it yet.
    const probe = await register(`${platform.env.topicPrefix}console-probe`, { type: 'record', name: `Probe${Date.now()}`, fields: [] });
    const framed = Buffer.concat([Buffer.from([0]), Buffer.alloc(4), body]);
    framed.writeInt32BE(probe + 1, 1);
    const producer = platform.kafka.producer();
    await producer.connect();
    await producer.send({
      topic: codec.topicFor('TaskAccepted'),
      acks: -1,
      messages: [
        { key: accepted.taskId, value: framed, headers: { eventId: accepted.eventId, eventType: accepted.eventType } },
        { key: randomUUID(), value: Buffer.from('<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">') },
      ],
    });
    await producer.disconnect();

    await waitFor(
      async () => {
        await adminPage.goto(`${consoleUrl}/dead-letters`);
        return (
          (await adminPage.locator('tr[data-group="quota:UNKNOWN_SCHEMA"]').count()) === 1 &&
          (await adminPage.locator('tr[data-group="quota:DECODE_FAILED"]').count()) === 1
        );
      },
      { what: 'both dead letters in the console', timeoutMs: 30_000 },
    );
    await screenshot(adminPage, 'dead-letters');

    // The hostile one: its bytes shown as text, nothing of it run.
    await adminPage.click('tr[data-group="quota:DECODE_FAILED"] a:has-text("DECODE_FAILED")');
    await adminPage.click('td a >> nth=0');
    expect(await adminPage.textContent('#letter-value')).toContain('<script>window.__pwned = 1</script>');
    expect(await adminPage.evaluate('window.__pwned')).toBeUndefined();
    expect(await adminPage.locator('main script, main img').count()).toBe(0);

    // The poison: a dry run first, then (its schema registered) the re-drive, and quota debits the task.
    await adminPage.goto(`${consoleUrl}/dead-letters`);
    const group = adminPage.locator('tr[data-group="quota:UNKNOWN_SCHEMA"]');
    await group.locator('button:has-text("Re-drive group")').click();
    expect(await adminPage.textContent('#dry-run')).toContain('1 letter(s) would be re-driven');
    expect((await platform.get<{ items: unknown[] }>('quota', '/quota/poisoned/ledger')).items).toHaveLength(0);

    const schema = loadSchema('TaskAccepted');
    expect(await register(`${platform.env.topicPrefix}console-fix`, { ...schema, doc: `TaskAccepted, registered by the console test ${Date.now()}` })).toBe(
      probe + 1,
    );
    await adminPage.uncheck('input[name=dryRun]');
    await adminPage.click('button:has-text("Re-drive")');
    await adminPage.waitForURL(/\/dead-letters\/redrives\//);
    await waitFor(async () => ((await adminPage.textContent('#redrive-progress')) ?? '').includes('1 of 1 re-driven — finished'), {
      what: 'the re-drive to finish, as its page shows',
      timeoutMs: 20_000,
    });
    // Polling its progress makes no consumer group (the console follows the logs with one), and a console that never saw it asked shows it
    const [runPath, groupPrefix] = [new URL(adminPage.url()).pathname, `${platform.env.topicPrefix}console-`];
    const groupsBefore = await consumerGroupsStartingWith(platform.kafka, groupPrefix);
    for (let i = 0; i < 5; i++) expect((await adminPage.request.get(`${consoleUrl}${runPath}/progress`)).ok()).toBe(true);
    expect(await consumerGroupsStartingWith(platform.kafka, groupPrefix)).toBe(groupsBefore);
    const elsewhere = await (await browser.newContext()).newPage();
    const secondUrl = `http://127.0.0.1:${(await platform.startAnotherInstance('console')).port}`;
    await signIn(elsewhere, secondUrl, await tokenFor('ops', 'admin'));
    await elsewhere.goto(`${secondUrl}${runPath}`);
    expect(await elsewhere.textContent('#redrive-progress')).toContain('1 of 1 re-driven — finished');
    await waitFor(
      async () => (await platform.get<{ items: Array<{ kind: string }> }>('quota', '/quota/poisoned/ledger')).items.some((l) => l.kind === 'debit'),
      {
        what: 'quota to debit the re-driven task',
      },
    );

    // And the action is in the history, with who did it; no outbox row is parked.
    await adminPage.goto(`${consoleUrl}/dead-letters`);
    expect(await adminPage.textContent('main')).toMatch(/Re-drive history[\s\S]*ops[\s\S]*quota/);
    expect(await adminPage.textContent('main')).toMatch(/Parked outbox rows[\s\S]*nothing here/);
    expect((await platform.get<{ items: unknown[] }>('generation', '/outbox/parked')).items).toEqual([]);
    expect((await fetch(`${platform.url('generation')}/outbox/parked`, { headers: await authAs('poisoned') })).status).toBe(403);
    await adminPage.goto(`${consoleUrl}/quota/poisoned`);
    expect(await adminPage.textContent('main')).toContain('debit');
  });

  it("shows a viewer others' input masked and no action anywhere; a viewer's forged action is refused", async () => {
    const viewer = await browser.newContext();
    const page = await viewer.newPage();
    try {
      await signIn(page, consoleUrl, await tokenFor('watcher', 'viewer'));
      expect(await page.textContent('nav')).toContain('watcher (viewer)');
      const tasks = await platform.get<{ items: Array<{ taskId: string }> }>('tasks', '/tasks?userId=console-user');
      await page.goto(`${consoleUrl}/tasks/${tasks.items[0].taskId}`);
      expect(await page.textContent('#task-input')).toBe('"***"');
      expect(await page.textContent('main')).not.toContain('secret plans');
      await page.goto(`${consoleUrl}/quota/console-user`);
      expect(await page.locator('button:has-text("Grant")').count()).toBe(0);
      await page.goto(`${consoleUrl}/dead-letters`);
      expect(await page.locator('tr[data-group="quota:DECODE_FAILED"]').count()).toBe(1);
      expect(await page.locator('button:has-text("Re-drive")').count()).toBe(0);

      // The viewer posts the grant form anyway, with its own session's CSRF token: refused, nothing granted.
      const before = await platform.quota('console-user');
      const csrf = await page.locator('nav input[name=_csrf]').getAttribute('value');
      const forged = await page.request.post(`${consoleUrl}/quota/console-user/grants`, { form: { _csrf: csrf!, amount: '50' }, maxRedirects: 0 });
      expect(forged.status()).toBe(403);
      expect((await platform.quota('console-user')).balance).toBe(before.balance);

      // Nor may a viewer cancel: no button on a running task's page, and the form posted anyway is refused.
      const running = (await platform.submit('viewer-target', { simulate: { hang: true } })).body.taskId as string;
      await waitFor(async () => (await platform.task(running)).state === 'RUNNING', { what: 'the task to run' });
      await page.goto(`${consoleUrl}/tasks/${running}`);
      expect(await page.locator('#cancel-task').count()).toBe(0);
      const cancel = await page.request.post(`${consoleUrl}/tasks/${running}/cancel`, { form: { _csrf: csrf!, key: 'k' }, maxRedirects: 0 });
      expect(cancel.status()).toBe(403);
      expect((await platform.task(running)).state).toBe('RUNNING');
      expect((await platform.cancel(running, 'viewer-target')).status).toBe(202); // its owner may
    } finally {
      await viewer.close();
    }
  });
});
