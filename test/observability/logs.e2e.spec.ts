import * as fs from 'node:fs';
import * as path from 'node:path';
import { createServer, Server } from 'node:http';
import { serviceNames } from '@app/config';
import { loadStackConfig } from '../../tools/stack/stack.config';
import { Platform } from '../support/platform';
import { authAs, tokenFor } from '../support/tokens';
import { freePort } from '../support/unique';

/** The Kafka passwords of the local stack: none of them may appear in a log. */
function kafkaPasswords(): string[] {
  const auth = path.join(loadStackConfig().stackDir, 'auth');
  return fs
    .readdirSync(auth)
    .filter((file) => /^kafka-.+\.password$/.test(file))
    .map((file) => fs.readFileSync(path.join(auth, file), 'utf8').trim());
}

/**
 * The services log JSON lines, and never what a log must not hold, even when the caller tries to make
 * them: tokens good and bad, a webhook URL with a password in it, a database URL with one, the
 * signing secret the webhook answer carries, the Kafka passwords.
 */
describe('JSON logs', () => {
  const platform = new Platform({ LOG_LEVEL: 'debug' });
  let receiver: Server;
  let receiverPort: number;
  beforeAll(async () => {
    await platform.start();
    receiverPort = await freePort();
    let calls = 0;
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(++calls === 1 ? 500 : 204).end());
    }).listen(receiverPort, '127.0.0.1');
  });
  afterAll(async () => {
    receiver?.close();
    await platform.stop();
  });

  it('are JSON lines with the ids of the work, and hold no token, secret or password', async () => {
    const secrets: string[] = [...kafkaPasswords()];
    const headers = { 'content-type': 'application/json', ...(await authAs('logged')) };
    secrets.push(await tokenFor('logged'));

    // A URL with a password in it is refused; the refusal must not repeat it.
    const withPassword = await fetch(`${platform.url('notification')}/users/logged/webhook`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ url: `http://hook-user:hook-pass-4711@127.0.0.1:${receiverPort}/hook` }),
    });
    expect(withPassword.status).toBe(400);
    secrets.push('hook-pass-4711');
    const registered = await fetch(`${platform.url('notification')}/users/logged/webhook`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hook` }),
    });
    expect(registered.status).toBe(200);
    secrets.push(((await registered.json()) as { secret: string }).secret);

    // Another user's token on this user's data, and tokens that are not valid at all.
    const intruder = await tokenFor('intruder');
    secrets.push(intruder);
    expect((await fetch(`${platform.url('quota')}/quota/logged`, { headers: { authorization: `Bearer ${intruder}` } })).status).toBe(403);
    const forged = `${(await tokenFor('logged')).slice(0, -6)}AAAAAA`;
    secrets.push(forged);
    expect((await fetch(`${platform.url('tasks')}/tasks`, { headers: { authorization: `Bearer ${forged}` } })).status).toBe(401);

    // A task through every service, a webhook that fails once, and one instance whose database URL has a password.
    const dbUrl = new URL(platform.env.databaseUrl('quota'));
    dbUrl.username = 'postgres';
    dbUrl.password = 'db-pass-4711';
    secrets.push('db-pass-4711');
    await platform.startAnotherInstance('quota', { QUOTA_DATABASE_URL: dbUrl.toString() });
    const taskId = (await platform.submit('logged', { simulate: { transientFailures: 1 } })).body.taskId as string;
    await platform.settled(taskId);

    for (const name of serviceNames) {
      const lines = platform.service(name).output().split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThan(10);
      const entries = lines.map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          throw new Error(`${name} logged a line that is not JSON: ${line}`);
        }
      });
      for (const entry of entries) expect(entry).toMatchObject({ level: expect.any(String), time: expect.any(String), service: name, msg: expect.any(String) });
      for (const secret of secrets) {
        const leak = lines.find((line) => line.includes(secret));
        expect(leak === undefined ? 'no leak' : `${name} logged a secret: ${leak}`).toBe('no leak');
      }
    }

    // Lines about the task's work carry its ids: the HTTP request that made it, and its messages.
    const aboutTask = serviceNames.flatMap((name) =>
      platform
        .service(name)
        .output()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    );
    const tagged = aboutTask.filter((entry) => entry.taskId === taskId);
    expect(new Set(tagged.map((entry) => entry.service)).size).toBeGreaterThanOrEqual(2);
    expect(tagged.every((entry) => typeof entry.traceId === 'string')).toBe(true);
    expect(tagged.filter((entry) => typeof entry.eventId === 'string' && typeof entry.correlationId === 'string').length).toBeGreaterThan(5);
    expect(tagged.some((entry) => entry.service === 'generation' && entry.level === 'warn' && /attempt 1 failed/.test(entry.msg))).toBe(true);
  });
});
