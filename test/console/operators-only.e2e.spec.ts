import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DeadLettersController } from '../../apps/console/src/http/dead-letters.controller';
import { OverviewController } from '../../apps/console/src/http/overview.controller';
import { QuotaController } from '../../apps/console/src/http/quota.controller';
import { TasksController } from '../../apps/console/src/http/tasks.controller';
import { Platform } from '../support/platform';
import { tokenFor } from '../support/tokens';

/** Every route the console's page controllers declare, read from their decorators: a new page is tried too. */
function consoleRoutes(): Array<{ method: 'GET' | 'POST'; path: string }> {
  const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
  return [OverviewController, TasksController, DeadLettersController, QuotaController].flatMap((controller) => {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const prototype = controller.prototype as unknown as Record<string, object>;
    return Object.getOwnPropertyNames(prototype)
      .map((name) => prototype[name])
      .filter((handler) => typeof handler === 'function' && Reflect.hasMetadata(PATH_METADATA, handler))
      .map((handler) => {
        const method = methods[Reflect.getMetadata(METHOD_METADATA, handler) as number] as 'GET' | 'POST';
        const path = String(Reflect.getMetadata(PATH_METADATA, handler));
        return { method, path: `/${[base, path].filter((p) => p && p !== '/').join('/')}` };
      });
  });
}

/** A plain user against the operator console: refused at the door, on every page and every action. */
describe('the console is for operators only', () => {
  const platform = new Platform({ MODEL_SIMULATION: 'on' });
  let consoleUrl: string;
  let aliceTask: string;

  beforeAll(async () => {
    await platform.start();
    consoleUrl = await platform.startConsole();
    aliceTask = (await platform.submit('alice', { simulate: { latencyMs: 20_000 }, note: 'alice private' })).body.taskId as string;
  });
  afterAll(() => platform.stop());

  /** The sign-in form as a browser gets it: its cookie and the form's CSRF token. */
  async function signInForm(): Promise<{ cookie: string; csrf: string }> {
    const response = await fetch(`${consoleUrl}/sign-in`);
    const cookie = response.headers
      .getSetCookie()
      .find((c) => c.startsWith('console_sign_in='))!
      .split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await response.text())![1];
    return { cookie, csrf };
  }
  const postSignIn = (token: string, form: { cookie?: string; csrf?: string }) =>
    fetch(`${consoleUrl}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(form.cookie ? { cookie: form.cookie } : {}) },
      body: new URLSearchParams({ token, next: '/', ...(form.csrf ? { _csrf: form.csrf } : {}) }),
    });
  const sessionCookieIn = (response: Response) => response.headers.getSetCookie().some((c) => c.startsWith('console_session='));

  it("refuses a plain user's token at sign-in, saying why, and opens no session", async () => {
    const response = await postSignIn(await tokenFor('mallory'), await signInForm());
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('the token of mallory has neither the admin nor the viewer role');
    expect(sessionCookieIn(response)).toBe(false);
  });

  it('refuses a sign-in posted from elsewhere (login CSRF), even with a valid admin token', async () => {
    const admin = await tokenFor('ops', 'admin');
    const ownForm = await signInForm();
    // A page of another site posts its own (here: an admin's) token: no cookie of ours, or its own form token
    for (const forged of [{}, { csrf: ownForm.csrf }, { cookie: ownForm.cookie }, { cookie: ownForm.cookie, csrf: `${ownForm.csrf}x` }]) {
      const response = await postSignIn(admin, forged);
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('CSRF check failed');
      expect(sessionCookieIn(response)).toBe(false);
    }
    // The console's own form signs the same operator in
    const response = await postSignIn(admin, ownForm);
    expect(response.status).toBe(303);
    expect(sessionCookieIn(response)).toBe(true);
  });

  it("refuses a plain user's session on every page and action, and nothing is done", async () => {
    const routes = consoleRoutes();
    expect(routes.filter((r) => r.method === 'POST').length).toBeGreaterThanOrEqual(3);
    const values: Record<string, string> = { service: 'tasks', id: '1', userId: 'mallory', taskId: aliceTask };
    const cookie = `console_session=${await tokenFor('mallory')}`;
    const balanceBefore = (await platform.quota('mallory')).balance;

    for (const route of routes) {
      const path = route.path.replace(/:(\w+)/g, (_, name: string) => values[name]);
      const response = await fetch(`${consoleUrl}${path}`, {
        method: route.method,
        redirect: 'manual',
        headers: { cookie, ...(route.method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        body: route.method === 'POST' ? new URLSearchParams({ amount: '1000', reason: 'mine', code: 'HANDLER_FAILED', dryRun: 'false' }) : undefined,
      });
      const page = await response.text();
      expect({ route: `${route.method} ${path}`, status: response.status }).toEqual({ route: `${route.method} ${path}`, status: 403 });
      expect(page).toContain('neither the admin nor the viewer role');
      expect(page).not.toContain('alice');
    }

    // Alice's task was not cancelled, and mallory granted herself nothing
    expect((await platform.task(aliceTask)).state).not.toMatch(/CANCEL/);
    expect((await platform.quota('mallory')).balance).toBe(balanceBefore);
  });
});
