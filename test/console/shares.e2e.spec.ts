import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../support/browser';
import { Platform } from '../support/platform';
import { tokenFor } from '../support/tokens';
import { waitFor } from '../support/wait-for';

/** Who holds generation's slots, in the console: the busiest users on the overview, and a share an admin sets. */
describe('operator console: shares', () => {
  const platform = new Platform({ MODEL_TIMEOUT: '60s', GENERATION_CONCURRENCY: '4', GENERATION_MAX_PER_USER: '2' });
  let consoleUrl: string;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    await platform.start();
    consoleUrl = await platform.startConsole();
    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
    await signIn(page, consoleUrl, await tokenFor('ops', 'admin'));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await platform.stop();
  });

  it('shows the busiest user on the overview, and sets and resets their share on the record', async () => {
    // Given a user whose three tasks hang in generation: two run (their share), one waits
    for (let i = 0; i < 3; i++) await platform.submit('hogger', { i, simulate: { hang: true } });
    await waitFor(async () => (await platform.get('generation', '/users/hogger/share')).running === 2, { what: "hogger's two attempts running" });

    // Then the overview names them, with what they run and have due
    await page.goto(consoleUrl);
    const row = page.locator('tr', { has: page.locator('a[href="/shares/hogger"]') });
    expect(await row.locator('td').allTextContents()).toEqual(['hogger', '2', '1', '2']);

    // When an admin sets their share to 3 on their page, then to the default again
    await row.locator('a').click();
    expect(await page.textContent('h1')).toBe('Share of hogger');
    await page.fill('input[name=maxRunning]', '3');
    await page.click('button:has-text("Set")');
    expect(await page.textContent('#share')).toBe('3');
    await waitFor(async () => (await platform.get('generation', '/users/hogger/share')).running === 3, { what: 'the third attempt started' });
    await page.click('button:has-text("Default again")');
    expect(await page.textContent('#share')).toBe('2');

    // Then both changes are on the record, by the admin who made them
    const changes = (await platform.get('generation', '/users/hogger/share/changes')).items;
    expect(changes.map((c: { maxRunning: number | null; setBy: string }) => [c.maxRunning, c.setBy])).toEqual([
      [null, 'ops'],
      [3, 'ops'],
    ]);
    expect(await page.locator('main table').last().locator('tr').count()).toBeGreaterThanOrEqual(3);
  });
});
