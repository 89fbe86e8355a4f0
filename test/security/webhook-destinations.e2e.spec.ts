import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { TestDnsServer } from '../support/dns-server';
import { Platform } from '../support/platform';
import { authAs } from '../support/tokens';
import { freePort } from '../support/unique';
import { waitFor } from '../support/wait-for';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP server that records what reaches it: every connection, every request. */
async function listen(port: number, answer: (res: import('node:http').ServerResponse) => void) {
  const seen = { connections: 0, requests: [] as Received[] };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.requests.push({ headers: req.headers, body });
      answer(res);
    });
  });
  server.on('connection', () => seen.connections++);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('webhooks that cannot be aimed inside', () => {
  let platform: Platform;
  let dns: TestDnsServer;
  let rebindTo = '93.184.216.34';
  let receiverPort: number;
  let targetPort: number;
  let receiver: Awaited<ReturnType<typeof listen>>;
  let target: Awaited<ReturnType<typeof listen>>;
  let receiverAnswer: (res: import('node:http').ServerResponse) => void = (res) => res.writeHead(204).end();

  beforeAll(async () => {
    dns = await new TestDnsServer((name) =>
      name === 'rebind.test' ? rebindTo : name === 'localhost' ? '127.0.0.1' : name === 'public.test' ? '93.184.216.34' : undefined,
    ).start();
    receiverPort = await freePort();
    targetPort = await freePort();
    receiver = await listen(receiverPort, (res) => receiverAnswer(res));
    // The inside service an attacker would reach: never allowed, it must never see a connection.
    target = await listen(targetPort, (res) => res.writeHead(200).end('secret inside data'));
    platform = new Platform({
      WEBHOOK_ALLOWED_TARGETS: `127.0.0.1:${receiverPort}`,
      WEBHOOK_DNS_SERVERS: dns.address,
      WEBHOOK_ROTATION_GRACE: '4s',
      WEBHOOK_MAX_ATTEMPTS: '1',
    });
    await platform.start();
  });
  afterAll(async () => {
    await platform.stop();
    await Promise.all([receiver.close(), target.close(), dns.stop()]);
  });

  const put = async (userId: string, url: string) =>
    fetch(`${platform.url('notification')}/users/${userId}/webhook`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...(await authAs(userId)) },
      body: JSON.stringify({ url }),
    });
  const webhookRows = async () => {
    const db = new Client({ connectionString: platform.env.databaseUrl('notification') });
    await db.connect();
    try {
      return (await db.query('select * from webhooks')).rows;
    } finally {
      await db.end();
    }
  };

  it.each([
    ['loopback', 'https://127.0.0.1/'],
    ['loopback, another address', 'https://127.8.9.10/'],
    ['IPv6 loopback', 'https://[::1]/'],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data'],
    ['RFC 1918, 10/8', 'https://10.0.0.1/'],
    ['RFC 1918, 172.16/12', 'https://172.16.5.4/'],
    ['RFC 1918, 192.168/16', 'https://192.168.1.1/'],
    ['CGNAT', 'https://100.64.0.1/'],
    ['this network', 'https://0.0.0.0/'],
    ['decimal', 'https://2130706433/'],
    ['octal', 'https://0177.0.0.1/'],
    ['hex', 'https://0x7f.0.0.1/'],
    ['shortened', 'https://127.1/'],
    ['IPv4-mapped IPv6', 'https://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped IPv6, hex', 'https://[::ffff:a9fe:a9fe]/'],
    ['IPv4-compatible IPv6', 'https://[::127.0.0.1]/'],
    ['NAT64', 'https://[64:ff9b::a9fe:a9fe]/'],
    ['6to4', 'https://[2002:7f00:1::]/'],
    ['link-local IPv6', 'https://[fe80::1]/'],
    ['unique-local IPv6', 'https://[fd00::1]/'],
    ['multicast', 'https://224.0.0.1/'],
    ['IPv6 multicast', 'https://[ff02::1]/'],
    ['a name that resolves to loopback', 'https://localhost/'],
    ['the allowed receiver, on another port', 'http://127.0.0.1:{another port}/'],
    ['credentials in the URL', 'https://user:pass@public.test/'],
    ['a scheme that is not http(s)', 'ftp://public.test/'],
    ['a name that does not resolve', 'https://nowhere.test/'],
  ])('refuses %s (%s) with 400 and stores nothing', async (_, url) => {
    const response = await put('ssrf-user', url.replace('{another port}', String(receiverPort + 1)));
    expect(response.status).toBe(400);
    expect(await webhookRows()).toEqual([]);
  });

  it('accepts a public name, and the allowed receiver', async () => {
    expect((await put('public-user', 'https://public.test/hooks')).status).toBe(200);
    expect((await put('public-user', `http://127.0.0.1:${receiverPort}/hooks`)).status).toBe(200);
  });

  it("does not follow a receiver's redirect to an inside address: no connection reaches it", async () => {
    // Given a receiver (allowed) that answers every delivery with a redirect to the inside target
    receiverAnswer = (res) => res.writeHead(302, { location: `http://127.0.0.1:${targetPort}/steal` }).end('moved');
    expect((await put('redirected', `http://127.0.0.1:${receiverPort}/hooks`)).status).toBe(200);
    const before = receiver.seen.requests.length;

    // When the user's task completes
    await platform.settled((await platform.submit('redirected')).body.taskId);

    // Then the receiver was called once, the redirect was not followed, and the outcome names the category only
    expect(receiver.seen.requests.length - before).toBe(1);
    expect(target.seen.connections).toBe(0);
    const [note] = await platform.notifications('redirected');
    expect(note).toMatchObject({ status: 'failed', lastError: 'http-3xx' });
    receiverAnswer = (res) => res.writeHead(204).end();
  });

  it('refuses at connect time a name that resolved outside at registration and inside at delivery (DNS rebinding)', async () => {
    // Given a webhook on a name that resolves to a public address when it is registered
    rebindTo = '93.184.216.34';
    expect((await put('rebound', `http://rebind.test:${targetPort}/hooks`)).status).toBe(200);

    // When the name is made to resolve to loopback, and the user's task completes
    rebindTo = '127.0.0.1';
    await platform.settled((await platform.submit('rebound')).body.taskId);

    // Then the delivery was refused at connect: the inside target saw no connection
    const [note] = await waitFor(
      async () => {
        const notes = await platform.notifications('rebound');
        return notes[0]?.status === 'failed' && notes;
      },
      { what: 'the delivery to fail' },
    );
    expect(note.lastError).toBe('refused-destination');
    expect(target.seen.connections).toBe(0);
    expect(dns.queries.filter((q) => q === 'A rebind.test').length).toBeGreaterThanOrEqual(2);
  });

  it('signs with both secrets during the rotation grace, then with the new one only, and stores no secret in clear', async () => {
    // Given a registered webhook, then a rotation
    const user = 'rotating';
    const { secret: oldSecret } = (await (await put(user, `http://127.0.0.1:${receiverPort}/rotating`)).json()) as { secret: string };
    const rotated = await fetch(`${platform.url('notification')}/users/${user}/webhook/rotate`, { method: 'POST', headers: await authAs(user) });
    expect(rotated.status).toBe(200);
    const { secret: newSecret, previousSecretValidUntil } = (await rotated.json()) as { secret: string; previousSecretValidUntil: string };
    expect(newSecret).not.toBe(oldSecret);

    // When a task completes within the grace period
    const delivered = (path: string) => receiver.seen.requests.filter((r) => r.body.includes(path));
    const first = (await platform.settled((await platform.submit(user)).body.taskId)).taskId as string;
    const [during] = await waitFor(() => delivered(first).length === 1 && delivered(first), { what: 'the delivery during the grace' });

    // Then both the old and the new secret verify it
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(during.body, during.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(newSecret).verify(during.body, during.headers as Record<string, string>)).not.toThrow();

    // When a task completes after the grace period
    await waitFor(() => Date.now() > Date.parse(previousSecretValidUntil), { what: 'the grace period to end' });
    const second = (await platform.settled((await platform.submit(user, { n: 2 })).body.taskId)).taskId as string;
    const [after] = await waitFor(() => delivered(second).length === 1 && delivered(second), { what: 'the delivery after the grace' });

    // Then only the new secret verifies it
    expect(() => new Webhook(newSecret).verify(after.body, after.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(oldSecret).verify(after.body, after.headers as Record<string, string>)).toThrow();

    // And the database holds neither secret in clear
    const stored = JSON.stringify(await webhookRows());
    for (const secret of [oldSecret, newSecret]) {
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(secret.replace(/^whsec_/, ''));
    }
  });

  it('stops deliveries when the webhook is removed; outcomes stay in the inbox', async () => {
    const user = 'leaving';
    expect((await put(user, `http://127.0.0.1:${receiverPort}/leaving`)).status).toBe(200);
    const removed = await fetch(`${platform.url('notification')}/users/${user}/webhook`, { method: 'DELETE', headers: await authAs(user) });
    expect(removed.status).toBe(204);
    const before = receiver.seen.requests.length;
    const task = await platform.settled((await platform.submit(user)).body.taskId);
    expect(receiver.seen.requests.length).toBe(before);
    expect(task.timeline.find((e: { eventType: string }) => e.eventType === 'NotificationSent').data).toEqual({ outcome: 'TaskCompleted', channel: 'inbox' });
  });
});
