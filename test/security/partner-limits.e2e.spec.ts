import { PartnerClient } from '../support/partner';
import { Platform } from '../support/platform';
import { TopicReader } from '../support/topic-reader';
import { asAdmin, authAs } from '../support/tokens';
import { uniqueSuffix } from '../support/unique';
import { waitFor } from '../support/wait-for';

type Outcome = { taskId: string; eventType: string; reason?: string };

/**
 * Each user a partner invents used to bring an open-task cap and a rate of its own, and a request by
 * Kafka took no rate token at all: N users, N× every limit. On the real stack, a partner floods the
 * platform with users it made up, and its namespace's limits hold across all of them while an HTTP
 * user and another partner's user work on.
 */
describe("a partner's limits across the users it invents", () => {
  // A model call slow enough (2 s) that the flood is decided while the namespace's tasks still run
  const platform = new Platform({ MODEL_TIMEOUT: '10s' });
  const suffix = uniqueSuffix();
  let flooder: PartnerClient;
  let neighbour: PartnerClient;
  let outcomes: TopicReader;

  beforeAll(async () => {
    flooder = await PartnerClient.add(`pf${suffix}`, platform.env.topicPrefix);
    neighbour = await PartnerClient.add(`pq${suffix}`, platform.env.topicPrefix);
    await platform.start();
    outcomes = await flooder.outcomes();
  });
  afterAll(async () => {
    await Promise.all([flooder, neighbour].map((p) => p?.remove().catch(() => undefined)));
    await platform.stop();
  });

  const limits = async (partner: string, body?: unknown, headers?: Record<string, string>) => {
    const response = await fetch(`${platform.url('tasks')}/partners/${partner}/limits`, {
      method: body === undefined ? 'GET' : 'PUT',
      headers: { ...(headers ?? (await asAdmin())), 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const endedOf = (ids: Set<string>, count: number, what: string) =>
    waitFor(
      () => {
        const found = (outcomes.events() as Outcome[]).filter(
          (e) => ids.has(e.taskId) && ['TaskCompleted', 'TaskFailed', 'TaskRejected'].includes(e.eventType),
        );
        return found.length >= count && found;
      },
      { what, timeoutMs: 120_000, intervalMs: 300 },
    );
  const neighboursWork = async () => {
    const started = Date.now();
    const neighbourRequest = neighbour.request(`${neighbour.name}:n1`);
    await neighbour.publish(neighbourRequest);
    const httpTasks = await Promise.all([1, 2, 3].map(() => platform.submit(`limits-http-${suffix}`)));
    for (const task of httpTasks) expect(await platform.settled(task.body.taskId as string, 60_000)).toMatchObject({ state: 'SUCCESS' });
    expect(await platform.settled(neighbourRequest.taskId, 60_000)).toMatchObject({ state: 'SUCCESS' });
    return Date.now() - started;
  };

  it('refuses limits set by anyone but an admin, and malformed ones', async () => {
    expect((await limits(flooder.name, { maxOpenTasks: 1_000_000 }, await authAs(`${flooder.name}:u1`))).status).toBe(403);
    expect((await limits(flooder.name, undefined, await authAs(`${flooder.name}:u1`))).status).toBe(403);
    expect((await limits(flooder.name, { maxOpenTasks: 0 })).status).toBe(400);
    expect((await limits(flooder.name, { perUser: 5 })).status).toBe(400);
    expect((await limits('Not_A_Partner', { rateLimit: 5 })).status).toBe(400);
  });

  it('gives 300 invented users, all asking at once, no more open tasks than the namespace may have, and slows no other tenant', async () => {
    // Given a namespace that may have 5 unfinished tasks together
    expect(await limits(flooder.name, { maxOpenTasks: 5, rateLimit: 5000, rateBurst: 1000 })).toMatchObject({
      status: 200,
      body: { maxOpenTasks: 5, openTasks: 0 },
    });
    // (the neighbours have worked once before: a first task on a fresh platform is no measure)
    await neighboursWork();
    // When it asks for 300 users it made up, each a slow task, while the neighbours ask too
    const requests = Array.from({ length: 300 }, (_, i) => flooder.request(`${flooder.name}:invented-${i}`, { text: 'slow', simulate: { latencyMs: 2000 } }));
    await flooder.publishAll(requests);
    const neighbourMs = await neighboursWork();
    // Then 5 ran and the other 295 were refused for the namespace's cap, each once
    const ended = await endedOf(new Set(requests.map((r) => r.taskId)), 300, "300 outcomes on the flooder's topic");
    const tally = (events: Outcome[]) =>
      events.reduce<Record<string, number>>((t, e) => ({ ...t, [e.reason ?? e.eventType]: (t[e.reason ?? e.eventType] ?? 0) + 1 }), {});
    expect(tally(ended)).toEqual({ TaskCompleted: 5, PARTNER_TOO_MANY_OPEN_TASKS: 295 });
    expect(ended).toHaveLength(300);
    // And the neighbours' tasks ended while the flood was being refused, and the namespace's slots are free again
    expect(neighbourMs).toBeLessThan(60_000);
    await waitFor(async () => (await limits(flooder.name)).body.openTasks === 0, { what: "the namespace's slots given back" });
  });

  it("refuses a namespace's requests past its rate, whoever they are for, by Kafka and by POST /tasks", async () => {
    // Given a namespace that may ask 2 a second, 10 in a burst
    expect((await limits(flooder.name, { maxOpenTasks: 1000, rateLimit: 2, rateBurst: 10 })).status).toBe(200);
    // When it asks for 100 users at once
    const started = Date.now();
    const requests = Array.from({ length: 100 }, (_, i) => flooder.request(`${flooder.name}:hasty-${i}`));
    await flooder.publishAll(requests);
    const ended = await endedOf(new Set(requests.map((r) => r.taskId)), 100, "100 outcomes on the flooder's topic");
    const seconds = (Date.now() - started) / 1000;
    // Then the burst and what the rate refilled while they were decided ran, the rest were refused
    const completed = ended.filter((e) => e.eventType === 'TaskCompleted').length;
    expect(completed).toBeGreaterThanOrEqual(10);
    expect(completed).toBeLessThanOrEqual(10 + Math.ceil(2 * seconds));
    expect(ended.filter((e) => e.eventType === 'TaskRejected').map((e) => e.reason)).toEqual(Array(100 - completed).fill('PARTNER_RATE_LIMITED'));
    // And one of its users asking by HTTP meets the same bucket, while an HTTP user of no namespace does not
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => platform.submit(`${flooder.name}:web-${i}`)));
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    expect(answers.find((a) => a.status === 429)?.body).toMatchObject({ detail: expect.stringContaining(`across the users of ${flooder.name}`) });
    expect(await neighboursWork()).toBeLessThan(60_000);
  });
});
