import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import * as net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Platform } from '../support/platform';
import { asAdmin, authAs } from '../support/tokens';
import { waitFor } from '../support/wait-for';

const deadlineMs = 3_000;

/** A receiver that answers its status line one byte every 2 s: a minute and more for one answer. */
class TricklingReceiver {
  readonly connections: Array<{ opened: number; closed?: number }> = [];
  private readonly server = net.createServer((socket) => {
    const connection: { opened: number; closed?: number } = { opened: Date.now() };
    this.connections.push(connection);
    const answer = 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n';
    let sent = 0;
    const timer = setInterval(() => socket.writable && sent < answer.length && socket.write(answer[sent++]), 2_000);
    socket.resume(); // the request is read (and dropped), so that the client's closing is seen at once
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      connection.closed = Date.now();
    });
  });
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}/hooks`;
  }
  close(): void {
    this.server.close();
  }
}

/** A receiver that answers at once, or holds each answer until the test lets it go. */
class Receiver {
  readonly received: Array<{ webhookId: string; at: number; closedAt?: number }> = [];
  private held: ServerResponse[] = [];
  constructor(private readonly hold = false) {}
  private readonly server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const entry: { webhookId: string; at: number; closedAt?: number } = { webhookId: String(request.headers['webhook-id']), at: Date.now() };
    this.received.push(entry);
    request.socket.on('close', () => (entry.closedAt = Date.now()));
    request.resume();
    if (this.hold) this.held.push(response);
    else response.writeHead(204).end();
  });
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}/hooks`;
  }
  /** Answers 204 to every delivery held so far (that is still connected). */
  release(): void {
    for (const response of this.held.splice(0)) if (!response.socket?.destroyed) response.writeHead(204).end();
  }
  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}

/** No receiver holds webhook delivery: each attempt has one deadline, and only its own claim records it. */
describe('webhook receivers that hold on', () => {
  const platform = new Platform({ WEBHOOK_TIMEOUT: `${deadlineMs}ms`, WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_RETRY_INITIAL: '200ms', WEBHOOK_RETRY_MAX: '500ms' });
  const receivers: Array<{ close(): void }> = [];
  beforeAll(() => platform.start());
  afterAll(async () => {
    for (const receiver of receivers) receiver.close();
    await platform.stop();
  });

  async function register(userId: string, receiver: { start(): Promise<string>; close(): void }): Promise<void> {
    receivers.push(receiver);
    const response = await fetch(`${platform.url('notification')}/users/${userId}/webhook`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...(await authAs(userId)) },
      body: JSON.stringify({ url: await receiver.start() }),
    });
    expect(response.status).toBeLessThan(300);
  }
  const notificationsSent = async (taskId: string) =>
    (await platform.task(taskId)).timeline.filter((e: { eventType: string }) => e.eventType === 'NotificationSent').map((e: { data: unknown }) => e.data);

  it("delivers to a quick receiver within seconds while another user's receiver trickles, and notifies each outcome once", async () => {
    // Given one user whose receiver trickles its answer, with three outcomes waiting for it
    const trickling = new TricklingReceiver();
    await register('trickled', trickling);
    const slowTasks = await Promise.all([1, 2, 3].map(async (i) => (await platform.submit('trickled', { i })).body.taskId as string));
    await waitFor(() => trickling.connections.length >= 3, { what: 'the trickling receiver to be called' });

    // When another user's tasks complete, with a receiver that answers at once
    const quick = new Receiver();
    await register('quick', quick);
    const quickTasks = await Promise.all([1, 2, 3].map(async (i) => (await platform.submit('quick', { i })).body.taskId as string));
    const settledAt = new Map<string, number>();
    await Promise.all(
      quickTasks.map(async (id) =>
        settledAt.set((await platform.settled(id)).timeline.find((e: { eventType: string }) => e.eventType === 'TaskCompleted').eventId, Date.now()),
      ),
    );

    // Then each of their deliveries arrives within a few seconds of its outcome
    await waitFor(() => quick.received.length >= 3, { what: 'the three quick deliveries', timeoutMs: 20_000 });
    for (const delivery of quick.received) expect(delivery.at - settledAt.get(delivery.webhookId)!).toBeLessThan(deadlineMs + 2_000);

    // And each trickled attempt was cut at the deadline and tried again by policy (3 attempts), then told in the inbox
    await waitFor(
      async () => (await platform.notifications('trickled')).every((n) => n.status === 'failed') && (await platform.notifications('trickled')).length === 3,
      {
        what: 'the trickled notifications to fail for good',
        timeoutMs: 60_000,
      },
    );
    for (const n of await platform.notifications('trickled')) expect(n).toMatchObject({ status: 'failed', deliveryAttempts: 3 });
    expect(trickling.connections.length).toBeGreaterThanOrEqual(9);
    for (const c of trickling.connections.filter((c) => c.closed)) expect(c.closed! - c.opened).toBeLessThan(deadlineMs + 1_500);

    // And every outcome was notified exactly once: one NotificationSent each (it reaches the timeline
    // through tasks' bookkeeping group, which fetches lazily), one delivered webhook-id each
    for (const id of [...quickTasks, ...slowTasks]) {
      await waitFor(async () => (await notificationsSent(id)).length > 0, { what: `the NotificationSent of ${id} in its timeline` });
    }
    await platform.consumersCaughtUp();
    for (const id of quickTasks) expect(await notificationsSent(id)).toEqual([{ outcome: 'TaskCompleted', channel: 'webhook' }]);
    for (const id of slowTasks) expect(await notificationsSent(id)).toEqual([{ outcome: 'TaskCompleted', channel: 'inbox' }]);
    expect(new Set(quick.received.map((d) => d.webhookId)).size).toBe(quick.received.length);
  }, 120_000);

  it('ends a delivery in flight when its webhook is deleted (its late answer changes nothing) or its user erased (at the deadline)', async () => {
    // Given two users whose receivers hold their answers, each with a delivery in flight
    const deletedHook = new Receiver(true);
    const erasedHook = new Receiver(true);
    await register('hook-deleted', deletedHook);
    await register('hook-erased', erasedHook);
    const deletedTask = (await platform.submit('hook-deleted', {})).body.taskId as string;
    const erasedTask = (await platform.submit('hook-erased', {})).body.taskId as string;
    await waitFor(() => deletedHook.received.length === 1 && erasedHook.received.length === 1, { what: 'both deliveries in flight' });

    // When one webhook is deleted, and then its receiver answers 204 within the deadline
    const deleted = await fetch(`${platform.url('notification')}/users/hook-deleted/webhook`, { method: 'DELETE', headers: await authAs('hook-deleted') });
    expect(deleted.status).toBe(204);
    deletedHook.release();
    // And the other user is erased while their receiver never answers
    const erasure = await fetch(`${platform.url('tasks')}/users/hook-erased/data`, {
      method: 'DELETE',
      headers: { 'idempotency-key': 'erase-hook', ...(await asAdmin()) },
    });
    expect(erasure.status).toBe(202);

    // Then the hanging delivery is ended by the deadline, and after it each row is in one final state with one NotificationSent
    await waitFor(() => erasedHook.received[0].closedAt !== undefined, { what: 'the hanging delivery to end', timeoutMs: deadlineMs + 5_000 });
    expect(erasedHook.received[0].closedAt! - erasedHook.received[0].at).toBeLessThan(deadlineMs + 1_500);
    await sleep(deadlineMs);
    await platform.consumersCaughtUp();
    expect(await platform.notifications('hook-deleted')).toMatchObject([{ status: 'delivered', channel: 'inbox', deliveryAttempts: 1 }]);
    expect(await platform.notifications('hook-erased')).toMatchObject([{ status: 'failed', deliveryAttempts: 1 }]);
    expect(await notificationsSent(deletedTask)).toEqual([{ outcome: 'TaskCompleted', channel: 'inbox' }]);
    expect(await notificationsSent(erasedTask)).toEqual([{ outcome: 'TaskCompleted', channel: 'inbox' }]);
    expect(deletedHook.received).toHaveLength(1);
    expect(erasedHook.received).toHaveLength(1);
  }, 120_000);
});
