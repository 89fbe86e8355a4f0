import * as fs from 'node:fs';
import * as path from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { requireCommand } from '../../tools/stack/toolchain';

export const screenshotsDir = path.resolve(__dirname, '..', '..', 'test-results', 'screenshots');

/**
 * Debian's Chromium (installed by the project when missing), headless, driven by playwright-core:
 * no browser is downloaded at run time. The flags keep it off the network it cannot reach anyway.
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = requireCommand('chromium', 'chromium');
  const asRoot = process.getuid?.() === 0;
  return chromium.launch({
    executablePath,
    args: [
      ...(asRoot ? ['--no-sandbox'] : []),
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Kept as a test artifact (git-ignored), named for what it shows. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(screenshotsDir, { recursive: true });
  const file = path.join(screenshotsDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Signs in to the console with a token, as an operator pastes it. */
export async function signIn(page: Page, consoleUrl: string, token: string): Promise<void> {
  await page.goto(`${consoleUrl}/sign-in`);
  await page.fill('textarea[name=token]', token);
  await Promise.all([page.waitForURL(`${consoleUrl}/`), page.click('button:has-text("Sign in")')]);
}
