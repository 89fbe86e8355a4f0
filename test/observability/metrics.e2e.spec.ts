import { createServer, Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { newEvent, topicFor } from '@app/events';
import { EventCodec } from '@app/kafka';
import { defaults } from '@app/config';
import { AppName } from '../../tools/run/service-process';
import { Platform } from '../support/platform';
import { authAs } from '../support/tokens';
import { freePort } from '../support/unique';
import { waitFor } from '../support/wait-for';

/** GET /metrics on every service: the counters move with the operations that should move them. */
describe('Prometheus metrics', () => {
  const platform = new Platform();
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  const scrape = async (app: AppName) => (await fetch(`${platform.url(app)}/metrics`)).text();
  /** The sample's value, 0 when the series does not exist yet; `labels` must all match. */
  const value = async (app: AppName, name: string, labels: Record<string, string> = {}) => {
    const lines = (await scrape(app)).split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
    const match = lines.find((line) => Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)));
    return match ? Number(match.slice(match.lastIndexOf(' ') + 1)) : 0;
  };

  it('is served without a token, in Prometheus text format, with Node defaults', async () => {
    const response = await fetch(`${platform.url('quota')}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toContain('# TYPE outbox_pending gauge');
    expect(text).toContain('# TYPE outbox_oldest_age_seconds gauge');
  });

  it('counts requests by route, retries of the model, refunds, and times each task to its outcome', async () => {
    const postsBefore = await value('tasks', 'http_request_duration_seconds_count', { method: 'POST', route: '/tasks', status: '202' });
    const refundsBefore = await value('quota', 'quota_refunds_total');
    const retriesBefore = await value('generation', 'retries_total', { kind: 'generation' });
    const completedBefore = await value('tasks', 'task_end_to_end_seconds_count', { outcome: 'TaskCompleted' });

    const retried = (await platform.submit('metered', { simulate: { transientFailures: 1 } })).body.taskId as string;
    const failed = (await platform.submit('metered', { simulate: { permanentFailure: true } })).body.taskId as string;
    await Promise.all([platform.settled(retried), platform.settled(failed)]);

    expect(await value('tasks', 'http_request_duration_seconds_count', { method: 'POST', route: '/tasks', status: '202' })).toBe(postsBefore + 2);
    expect(await value('generation', 'retries_total', { kind: 'generation' })).toBe(retriesBefore + 1);
    await waitFor(async () => (await value('quota', 'quota_refunds_total')) === refundsBefore + 1, { what: 'the refund to be counted' });
    expect(await value('tasks', 'task_end_to_end_seconds_count', { outcome: 'TaskCompleted' })).toBe(completedBefore + 1);
    expect(await value('tasks', 'task_end_to_end_seconds_count', { outcome: 'TaskFailed' })).toBeGreaterThanOrEqual(1);
  });

  it('counts a duplicate delivery and a dead letter for the consumer, by reason', async () => {
    const duplicatesBefore = await value('quota', 'inbox_duplicates_total', { consumer: 'quota' });
    const deadBefore = await value('quota', 'dlq_messages_total', { consumer: 'quota', reason: 'DECODE_FAILED' });
    const codec = new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix);
    const origin = { taskId: randomUUID(), userId: 'metered-dup', correlationId: randomUUID(), causationId: null };
    const accepted = newEvent('TaskAccepted', { idempotencyKey: null, reportType: 'summary', input: '{}' }, origin, 'tasks');
    const producer = platform.kafka.producer();
    await producer.connect();
    try {
      const topic = topicFor('TaskAccepted', platform.env.topicPrefix);
      const message = { key: accepted.taskId, value: await codec.encode(accepted), headers: { eventId: accepted.eventId, eventType: accepted.eventType } };
      await producer.send({ topic, acks: -1, messages: [message, message, { key: randomUUID(), value: Buffer.from('not avro at all') }] });
    } finally {
      await producer.disconnect();
    }
    await waitFor(async () => (await value('quota', 'inbox_duplicates_total', { consumer: 'quota' })) === duplicatesBefore + 1, { what: 'the duplicate' });
    await waitFor(async () => (await value('quota', 'dlq_messages_total', { consumer: 'quota', reason: 'DECODE_FAILED' })) === deadBefore + 1, {
      what: 'the dead letter',
    });
    expect(await value('quota', 'consumer_message_duration_seconds_count', { consumer: 'quota', result: 'dead-lettered' })).toBeGreaterThanOrEqual(1);
    expect(await scrape('quota')).toMatch(/consumer_lag\{topic="[^"]+task-accepted",partition="\d+"\} 0/);
  });

  it('counts webhook deliveries by result: a receiver that fails once, then accepts', async () => {
    let calls = 0;
    const port = await freePort();
    const receiver: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(++calls === 1 ? 500 : 204).end());
    }).listen(port, '127.0.0.1');
    try {
      const registered = await fetch(`${platform.url('notification')}/users/metered-hook/webhook`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...(await authAs('metered-hook')) },
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook` }),
      });
      expect(registered.status).toBe(200);
      const retrying = await value('notification', 'webhook_deliveries_total', { result: 'retrying' });
      const delivered = await value('notification', 'webhook_deliveries_total', { result: 'delivered' });
      await platform.settled((await platform.submit('metered-hook')).body.taskId as string);
      expect(await value('notification', 'webhook_deliveries_total', { result: 'retrying' })).toBe(retrying + 1);
      expect(await value('notification', 'webhook_deliveries_total', { result: 'delivered' })).toBe(delivered + 1);
      expect(await value('notification', 'retries_total', { kind: 'webhook' })).toBeGreaterThanOrEqual(1);
    } finally {
      receiver.close();
    }
  });
});
