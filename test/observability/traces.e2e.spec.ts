import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { newEvent } from '@app/events';
import { EventCodec } from '@app/kafka';
import { defaults, serviceNames } from '@app/config';
import { loadStackConfig, zipkinUrl } from '../../tools/stack/stack.config';
import { stopService } from '../../tools/run/service-process';
import { Platform } from '../support/platform';
import { authAs } from '../support/tokens';
import { freePort } from '../support/unique';
import { waitFor } from '../support/wait-for';

interface ZipkinSpan {
  traceId: string;
  id: string;
  parentId?: string;
  name: string;
  kind?: string;
  timestamp: number;
  localEndpoint: { serviceName: string };
  tags?: Record<string, string>;
}

const zipkin = zipkinUrl(loadStackConfig());

/** Every trace Zipkin holds with a span tagged with this task's id. */
async function tracesOf(taskId: string): Promise<ZipkinSpan[][]> {
  const response = await fetch(`${zipkin}/api/v2/traces?annotationQuery=${encodeURIComponent(`taskId=${taskId}`)}&lookback=3600000&limit=10`);
  expect(response.status).toBe(200);
  return (await response.json()) as ZipkinSpan[][];
}

/** The span and its ancestors, up to the trace's root. */
function ancestry(span: ZipkinSpan, trace: ZipkinSpan[]): ZipkinSpan[] {
  const byId = new Map(trace.map((s) => [s.id, s]));
  const chain = [span];
  for (let parent = byId.get(span.parentId ?? ''); parent; parent = byId.get(parent.parentId ?? '')) chain.push(parent);
  return chain.reverse();
}

/** One trace per task, exported to the stack's Zipkin, across the four services and every Kafka hop. */
describe('traces', () => {
  const platform = new Platform();
  let receiver: Server;
  beforeAll(async () => {
    await platform.start();
    const port = await freePort();
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    }).listen(port, '127.0.0.1');
    const registered = await fetch(`${platform.url('notification')}/users/traced/webhook`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...(await authAs('traced')) },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook` }),
    });
    expect(registered.status).toBe(200);
  });
  afterAll(async () => {
    receiver?.close();
    await platform.stop();
  });

  it('follows a task from POST /tasks through every service, the model call and the webhook, in causal order', async () => {
    const taskId = (await platform.submit('traced', { simulate: { transientFailures: 1 } })).body.taskId as string;
    await platform.settled(taskId);
    let trace: ZipkinSpan[] = [];
    await waitFor(
      async () => {
        const traces = await tracesOf(taskId);
        trace = traces[0] ?? [];
        // Each service exports on its own schedule: wait until the last hops of all four have arrived.
        const names = new Set(trace.map((s) => `${s.localEndpoint.serviceName}: ${s.name}`));
        const last = [
          'quota: process generationsucceeded',
          'notification: webhook delivery',
          'tasks: process notificationsent',
          'generation: publish generationsucceeded',
        ];
        return last.every((name) => names.has(name));
      },
      { what: "the task's trace in Zipkin", timeoutMs: 30_000 },
    );

    expect(await tracesOf(taskId)).toHaveLength(1);
    expect(new Set(trace.map((s) => s.localEndpoint.serviceName))).toEqual(new Set(['tasks', 'quota', 'generation', 'notification']));
    // Queries are traced only with TRACE_QUERIES=on: by default no span is a database call.
    expect(trace.filter((s) => s.tags?.['db.system'] || s.tags?.['db.system.name'])).toEqual([]);
    const root = trace.find((s) => !s.parentId)!;
    expect(root).toMatchObject({ kind: 'SERVER', localEndpoint: { serviceName: 'tasks' } });
    expect(root.name).toMatch(/^post/);
    // Every span but the root has its parent in the trace, and starts no earlier than it.
    const ids = new Map(trace.map((s) => [s.id, s]));
    for (const span of trace.filter((s) => s !== root)) {
      expect(ids.has(span.parentId!)).toBe(true);
      expect(span.timestamp).toBeGreaterThanOrEqual(ids.get(span.parentId!)!.timestamp);
    }

    // Two model attempts (the first fails transiently), each with its call to the model inside it.
    const attempts = trace.filter((s) => s.name === 'generation attempt');
    expect(attempts.map((s) => s.tags?.attempt).sort()).toEqual(['1', '2']);
    for (const attempt of attempts) {
      expect(attempt.tags?.taskId).toBe(taskId);
      expect(trace.some((s) => s.parentId === attempt.id && s.kind === 'CLIENT' && s.localEndpoint.serviceName === 'generation')).toBe(true);
    }

    // The webhook attempt descends, hop by hop, from the request: the full story in one chain.
    const delivery = trace.find((s) => s.name === 'webhook delivery')!;
    expect(delivery.tags).toMatchObject({ taskId, eventType: 'TaskCompleted', attempt: '1' });
    const story = ancestry(delivery, trace).filter((s) => /^(publish|process) /.test(s.name) || ['generation attempt', 'webhook delivery'].includes(s.name));
    const hops = story.map((s) => `${s.localEndpoint.serviceName}: ${s.name}`);
    const expected = [
      'tasks: publish taskaccepted',
      'generation: process quotadebited',
      'generation: generation attempt',
      'generation: publish generationsucceeded',
      'tasks: process generationsucceeded',
      'tasks: publish taskcompleted',
      'notification: process taskcompleted',
      'notification: webhook delivery',
    ];
    for (const hop of expected) expect(hops).toContain(hop);
    expect(expected.map((hop) => hops.indexOf(hop))).toEqual([...expected.map((hop) => hops.indexOf(hop))].sort((a, b) => a - b));
    // The worker's claim publishes GenerationStarted in the task's trace too, once per attempt.
    expect(trace.filter((s) => s.name === 'publish generationstarted')).toHaveLength(2);
    // Every event's span names its task; the user's data key, issued with their first task, names the key (its Kafka key).
    for (const span of trace.filter((s) => /^(publish|process) /.test(s.name))) {
      expect(span.tags).toMatchObject({ taskId: span.name.endsWith(' userdatakey') ? expect.any(String) : taskId, eventId: expect.any(String) });
    }
  });

  it("links, never joins, the trace an outside producer's TaskRequested names in its traceparent: the task has its own", async () => {
    // Given an outside request whose traceparent names a trace of its sender's (it could as well name another task's)
    const traceId = randomBytes(16).toString('hex');
    const parentSpanId = randomBytes(8).toString('hex');
    const traceparent = `00-${traceId}-${parentSpanId}-01`;
    const requested = await publishOutsideRequest(platform, traceparent);
    await platform.settled(requested.taskId);

    // Then the task is traced in its own trace (its correlation id), through every service
    const own = requested.correlationId.replace(/-/g, '');
    let trace: ZipkinSpan[] = [];
    await waitFor(
      async () => {
        const response = await fetch(`${zipkin}/api/v2/trace/${own}`);
        trace = response.ok ? ((await response.json()) as ZipkinSpan[]) : [];
        return trace.some((s) => s.name === 'process taskcompleted' && s.localEndpoint.serviceName === 'notification');
      },
      { what: "the task's own trace in Zipkin", timeoutMs: 30_000 },
    );
    expect(new Set(trace.map((s) => s.localEndpoint.serviceName))).toEqual(new Set(['tasks', 'quota', 'generation', 'notification']));
    // And its first span is a root that names the outsider's trace as data, a child of nothing of the sender's
    const first = trace.find((s) => s.name === 'process taskrequested')!;
    expect(first).toMatchObject({ localEndpoint: { serviceName: 'tasks' }, tags: { taskId: requested.taskId, outsideTraceparent: traceparent } });
    expect(first.parentId).not.toBe(parentSpanId);
    // And nothing was put into the sender's trace
    expect((await fetch(`${zipkin}/api/v2/trace/${traceId}`)).status).toBe(404);
  });

  it('keeps, at a share of none, the spans of a task that failed from its failure on, and nothing of one that succeeded', async () => {
    // Given every service started again keeping no share of the tasks that go well
    for (const name of serviceNames) {
      const { port } = platform.service(name);
      await stopService(platform.service(name));
      await platform.startApp(name, port, { TRACE_SHARE: '0' });
    }

    // When one task succeeds, and then one fails for good
    const succeeded = (await platform.submit('traced', { shared: 'none' })).body.taskId as string;
    expect((await platform.settled(succeeded)).state).toBe('SUCCESS');
    const failed = (await platform.submit('traced', { simulate: { permanentFailure: true } })).body.taskId as string;
    expect(['FAILED', 'COMPENSATED']).toContain((await platform.settled(failed)).state);

    // Then the failed task's failure is traced in every service it went through, with what followed it
    const kept = (span: ZipkinSpan[], name: string, service: string) => span.some((s) => s.name === name && s.localEndpoint.serviceName === service);
    let spans: ZipkinSpan[] = [];
    await waitFor(
      async () => {
        spans = (await tracesOf(failed)).flat();
        return (
          kept(spans, 'process generationfailed', 'tasks') &&
          kept(spans, 'process generationfailed', 'quota') &&
          kept(spans, 'process taskfailed', 'notification') &&
          kept(spans, 'process quotarefunded', 'tasks')
        );
      },
      { what: "the failed task's spans in Zipkin", timeoutMs: 30_000 },
    );
    // but not what went well before it
    expect(spans.filter((s) => s.name === 'process taskaccepted' || s.name.startsWith('post'))).toEqual([]);
    // And nothing of the task that succeeded, whose spans ended before the failed task's were exported
    expect(await tracesOf(succeeded)).toEqual([]);
    // Nor of an outside request that succeeded though its traceparent said "sampled": an outsider does not steer the share
    const steered = await publishOutsideRequest(platform, `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`);
    expect((await platform.settled(steered.taskId)).state).toBe('SUCCESS');
    const later = (await platform.submit('traced', { simulate: { permanentFailure: true } })).body.taskId as string;
    await platform.settled(later);
    await waitFor(async () => (await tracesOf(later)).length > 0, { what: 'a later failure exported', timeoutMs: 30_000 });
    expect(await tracesOf(steered.taskId)).toEqual([]);
  });
});

/** A TaskRequested on the shared topic as an outside producer sends it, with `traceparent` among its headers. */
async function publishOutsideRequest(platform: Platform, traceparent: string) {
  const origin = { taskId: randomUUID(), userId: 'external:traced-outside', correlationId: randomUUID(), causationId: null };
  const requested = newEvent('TaskRequested', { idempotencyKey: null, reportType: 'summary', input: '{}' }, origin, 'billing-system');
  const codec = new EventCodec(defaults.schemaRegistryUrl, platform.env.topicPrefix);
  const producer = platform.kafka.producer();
  await producer.connect();
  try {
    const headers = { eventId: requested.eventId, eventType: requested.eventType, traceparent };
    await producer.send({
      topic: codec.topicFor('TaskRequested'),
      acks: -1,
      messages: [{ key: requested.taskId, value: await codec.encode(requested), headers }],
    });
  } finally {
    await producer.disconnect();
  }
  return requested;
}
