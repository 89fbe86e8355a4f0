import * as net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppName } from '../../tools/run/service-process';
import { Platform } from '../support/platform';
import { asAdmin } from '../support/tokens';

const apps: AppName[] = ['tasks', 'quota', 'generation', 'notification', 'console'];
const requestTimeoutMs = 4_000;

/** How long a caller waited for an answer to GET `url`. */
async function answeredIn(url: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

/**
 * A slowloris client: opens a connection and sends a request head one byte a second, never ending
 * it. Resolves with how long the connection lived once the server closes it.
 */
function slowClient(port: number): { closed: Promise<number>; stop: () => void } {
  const socket = net.connect(port, '127.0.0.1');
  const opened = performance.now();
  const head = `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(600)}`;
  let sent = 0;
  const timer = setInterval(() => socket.writable && socket.write(head[sent++ % head.length]), 1000);
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now() - opened)));
  void closed.then(() => clearInterval(timer));
  return { closed, stop: () => socket.destroy() };
}

/** An attacker against every HTTP app: slow paths for the scrubber, deep bodies for the handlers, slow clients for the sockets. */
describe('slow callers', () => {
  const platform = new Platform({ LOG_LEVEL: 'log', HTTP_HEADERS_TIMEOUT: '2s', HTTP_REQUEST_TIMEOUT: `${requestTimeoutMs}ms` });

  beforeAll(async () => {
    await platform.start();
    await platform.startConsole();
  });
  afterAll(() => platform.stop());

  it('keeps answering /health while 40 requests without a token send 14 KB paths that made the log scrubber backtrack', async () => {
    const hostilePath = `/tasks/${'a.'.repeat(7_000)}`;
    const attack = Promise.all(Array.from({ length: 40 }, () => fetch(`${platform.url('tasks')}${hostilePath}`).then((r) => r.status)));
    const health: number[] = [];
    for (let i = 0; i < 10; i++) health.push((await answeredIn(`${platform.url('tasks')}/health/live`)).ms);

    // Every hostile request is refused (no token, no such route) and the service's own health check
    // was never held: before linear scrubbing, 40 such paths held it for 2.3 s.
    for (const status of await attack) expect([401, 404]).toContain(status);
    expect(Math.max(...health)).toBeLessThan(1_000);
  });

  it.each([
    ['tasks', 'POST', '/tasks', 'input'],
    ['quota', 'POST', '/quota/deep-user/grants', 'amount'],
    ['notification', 'PUT', '/users/deep-user/webhook', 'url'],
  ] as const)('%s: answers %s %s with a field nested 32,000 levels deep 400, never 500', async (app, method, path, field) => {
    const deep = `{"${field}":${'['.repeat(32_000)}${']'.repeat(32_000)}}`;
    const response = await fetch(`${platform.url(app)}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'idempotency-key': `deep-${app}`, ...(await asAdmin()) },
      body: deep,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toContain('nested deeper than 64 levels');
  });

  it.each(apps)('%s: 300 clients sending a byte a second are cut at the request timeout, and a normal caller is answered meanwhile', async (app) => {
    const port = Number(new URL(platform.url(app)).port);
    const clients = Array.from({ length: 300 }, () => slowClient(port));
    try {
      await sleep(1_000);
      // A normal caller among them is answered
      const normal = await answeredIn(`${platform.url(app)}/health`);
      expect(normal.status).toBe(200);

      // And every slow client is cut by the server at the request timeout (Node's default would have
      // kept each for 300 s), though each was still sending
      const lifetimes = await Promise.race([Promise.all(clients.map((c) => c.closed)), sleep(requestTimeoutMs + 10_000).then(() => [] as number[])]);
      expect(lifetimes).toHaveLength(300);
      expect(Math.max(...lifetimes)).toBeLessThan(requestTimeoutMs + 2_500);
    } finally {
      for (const client of clients) client.stop();
    }
  });
});
