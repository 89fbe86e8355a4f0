import { createServer, IncomingMessage, Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { eventTypes, topicFor } from '@app/events';
import { Platform } from '../support/platform';
import { TopicReader } from '../support/topic-reader';
import { freePort } from '../support/unique';
import { waitFor } from '../support/wait-for';
import { authAs } from '../support/tokens';

describe('at-least-once delivery, end to end', () => {
  const platform = new Platform();
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  it('changes nothing when every event of a finished task is produced onto its topic again', async () => {
    // Given two finished tasks: one completed after a retry, one compensated
    const completed = (await platform.submit('replayer', { simulate: { transientFailures: 1 } })).body.taskId as string;
    const compensated = (await platform.submit('replayer', { simulate: { permanentFailure: true } })).body.taskId as string;
    const before = await Promise.all([completed, compensated].map((id) => platform.settled(id)));
    const quotaBefore = await platform.quota('replayer');
    const generationBefore = await Promise.all([completed, compensated].map((id) => platform.generation(id)));
    await platform.consumersCaughtUp();

    // When every event of both tasks, on every topic, is delivered again, byte for byte
    const reader = await new TopicReader(platform.kafka, undefined).start(eventTypes.map((t) => topicFor(t, platform.env.topicPrefix)));
    const ours = () => reader.messages.filter((m) => [completed, compensated].includes(m.key));
    const expected = before.reduce((n, task) => n + task.timeline.length, 0);
    await waitFor(() => ours().length === expected, { what: `the ${expected} events of both tasks` });
    await reader.stop();
    const producer = platform.kafka.producer({ idempotent: true });
    await producer.connect();
    const topicOf = (m: (typeof reader.messages)[number]) => topicFor(m.headers.eventType!.toString() as never, platform.env.topicPrefix);
    for (const m of ours()) await producer.send({ topic: topicOf(m), acks: -1, messages: [{ key: m.key, value: m.value, headers: m.headers }] });
    await producer.disconnect();
    await platform.consumersCaughtUp();

    // Then nothing changed: states, timelines, quota, generation attempts, notifications
    const after = await Promise.all([completed, compensated].map((id) => platform.task(id)));
    expect(after).toEqual(before);
    expect(await platform.quota('replayer')).toEqual(quotaBefore);
    expect(await Promise.all([completed, compensated].map((id) => platform.generation(id)))).toEqual(generationBefore);
    expect(await platform.notifications('replayer')).toHaveLength(2);
  });

  it('delivers a signed webhook, retrying a receiver that fails, and tells the user once', async () => {
    // Given a receiver that answers 503 twice before accepting
    const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
    const port = await freePort();
    const receiver: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(received.length <= 2 ? 503 : 204).end();
      });
    }).listen(port, '127.0.0.1');
    try {
      const registered = await fetch(`${platform.url('notification')}/users/hooked/webhook`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...(await authAs('hooked')) },
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hooks` }),
      });
      const { secret } = (await registered.json()) as { secret: string };

      // When the user's task completes
      const task = await platform.settled((await platform.submit('hooked', { text: 'webhook' })).body.taskId);

      // Then the third delivery was accepted, each one signed and carrying the outcome event's id
      expect(received).toHaveLength(3);
      const completedEvent = task.timeline.find((e: { eventType: string }) => e.eventType === 'TaskCompleted');
      for (const delivery of received) {
        expect(delivery.headers['webhook-id']).toBe(completedEvent.eventId);
        const verified = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as { type: string; data: { taskId: string } };
        expect(verified).toMatchObject({ type: 'task.completed', data: { taskId: task.taskId } });
      }
      // And the user was told once, by webhook
      const notes = await platform.notifications('hooked');
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatchObject({ channel: 'webhook', status: 'delivered', deliveryAttempts: 3 });
      const sent = task.timeline.filter((e: { eventType: string }) => e.eventType === 'NotificationSent');
      expect(sent).toHaveLength(1);
      expect(sent[0].data).toEqual({ outcome: 'TaskCompleted', channel: 'webhook' });
    } finally {
      receiver.close();
    }
  });

  it('refuses a webhook that is not an http(s) URL', async () => {
    const response = await fetch(`${platform.url('notification')}/users/u/webhook`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...(await authAs('u')) },
      body: JSON.stringify({ url: 'ftp://example.invalid/x' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ detail: 'url must be an http(s) URL' });
  });
});
