import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { History } from './history';
import type { Random } from './random';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The receiver some users register: it verifies each delivery's signature with the user's secret,
 * records its `webhook-id`, and at times answers 500, answers slowly, or trickles its answer a byte
 * every 2 s (which no delivery may wait for: the attempt ends at its deadline and is tried again), as
 * real receivers do. Its failures are chosen by the run's seed.
 */
export class WebhookReceiver {
  private server?: http.Server;
  private readonly secrets = new Map<string, string>();

  constructor(
    private readonly history: History,
    private readonly random: Random,
  ) {}

  async start(): Promise<number> {
    this.server = http.createServer((request, response) => void this.receive(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  url(user: string): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hooks/${encodeURIComponent(user)}`;
  }

  trust(user: string, secret: string): void {
    this.secrets.set(user, secret);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private verify(user: string, body: string, headers: Record<string, string>): { verified: boolean; payload: { type?: string; data?: { taskId?: string } } } {
    const secret = this.secrets.get(user);
    if (!secret) return { verified: false, payload: {} };
    try {
      return { verified: true, payload: new Webhook(secret).verify(body, headers) as { type?: string; data?: { taskId?: string } } };
    } catch {
      return { verified: false, payload: {} };
    }
  }

  private async receive(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const user = decodeURIComponent((request.url ?? '').replace(/^\/hooks\//, ''));
    const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
    const { verified, payload } = this.verify(user, body, headers);
    const roll = this.random.next();
    const trickles = verified && roll >= 0.15 && roll < 0.2;
    const answered = !verified ? 400 : roll < 0.1 ? 500 : trickles ? 0 : 204;
    if (verified && roll >= 0.1 && roll < 0.15) await sleep(3000);
    this.history.record({
      kind: 'delivery',
      at: Date.now(),
      user,
      webhookId: headers['webhook-id'] ?? '',
      taskId: payload.data?.taskId,
      outcome: payload.type,
      verified,
      answered,
    });
    if (trickles) return trickle(response);
    response.writeHead(answered).end();
  }
}

/** Writes a status line one byte every 2 s, by hand on the socket, until the caller gives up. */
function trickle(response: http.ServerResponse): void {
  const socket = response.socket;
  if (!socket) return;
  const answer = 'HTTP/1.1 204 No Content\r\n\r\n';
  let sent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || sent === answer.length) return clearInterval(timer);
    socket.write(answer[sent++]);
  }, 2000);
  socket.on('close', () => clearInterval(timer));
}
