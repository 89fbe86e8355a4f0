import { PartnerClient } from '../support/partner';
import { Platform } from '../support/platform';
import { TopicReader } from '../support/topic-reader';
import { asAdmin, authAs } from '../support/tokens';
import { uniqueSuffix } from '../support/unique';
import { waitFor } from '../support/wait-for';

/**
 * A partner names its users, so it can invent them: each new one used to start with DEFAULT_QUOTA,
 * quota nobody granted. On the real stack, a partner given a budget asks for 1,000 users it made up,
 * while an HTTP user and another partner's user work on.
 */
describe("a partner's budget for the users it invents", () => {
  const platform = new Platform();
  const suffix = uniqueSuffix();
  let inventor: PartnerClient;
  let neighbour: PartnerClient;
  let outcomes: TopicReader;

  beforeAll(async () => {
    inventor = await PartnerClient.add(`pb${suffix}`, platform.env.topicPrefix);
    neighbour = await PartnerClient.add(`pn${suffix}`, platform.env.topicPrefix);
    await platform.start();
    outcomes = await inventor.outcomes();
  });
  afterAll(async () => {
    await Promise.all([inventor, neighbour].map((p) => p?.remove().catch(() => undefined)));
    await platform.stop();
  });

  const budget = (partner: string, init: RequestInit = {}) =>
    fetch(`${platform.url('quota')}/partners/${partner}/budget`, init).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as Record<string, unknown>,
    }));
  const setBudget = async (partner: string, body: unknown, headers: Record<string, string>) =>
    budget(partner, { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('refuses a budget set by anyone but an admin, and a malformed one', async () => {
    expect((await setBudget(inventor.name, { drawCap: 1_000_000 }, await authAs(`${inventor.name}:u1`))).status).toBe(403);
    expect((await budget(inventor.name, { headers: await authAs(`${inventor.name}:u1`) })).status).toBe(403);
    expect(await setBudget(inventor.name, { drawCap: -1 }, await asAdmin())).toMatchObject({ status: 400 });
    expect(await setBudget(inventor.name, { perUser: 5 }, await asAdmin())).toMatchObject({ status: 400 });
    expect((await setBudget('Not_A_Partner', { drawCap: 5 }, await asAdmin())).status).toBe(400);
  });

  it("gives 1,000 invented users no more than the partner's cap, charges no one else, and slows no other tenant out of its tasks", async () => {
    // Given a partner whose new users start with 1 unit, 20 in all
    expect(await setBudget(inventor.name, { newUserQuota: 1, drawCap: 20 }, await asAdmin())).toMatchObject({
      status: 200,
      body: { partner: inventor.name, newUserQuota: 1, drawCap: 20, drawn: 0 },
    });
    // (and tasks' limits on the namespace raised past the burst: here the budget alone is tried)
    const raised = await fetch(`${platform.url('tasks')}/partners/${inventor.name}/limits`, {
      method: 'PUT',
      headers: { ...(await asAdmin()), 'content-type': 'application/json' },
      body: JSON.stringify({ maxOpenTasks: 2000, rateLimit: 5000, rateBurst: 2000 }),
    });
    expect(raised.status).toBe(200);
    const httpUser = `budget-http-${suffix}`;
    const neighbourUser = `${neighbour.name}:n1`;
    // When it asks for 1,000 users it made up, while an HTTP user and another partner's user ask too
    const requests = Array.from({ length: 1000 }, (_, i) => inventor.request(`${inventor.name}:invented-${i}`));
    const burst = inventor.publishAll(requests);
    const neighbourRequest = neighbour.request(neighbourUser);
    await neighbour.publish(neighbourRequest);
    const httpTasks = await Promise.all([1, 2, 3].map(() => platform.submit(httpUser)));
    await burst;
    // Then every invented user got an outcome: 20 ran on the budget, the other 980 failed for want of quota
    const ids = new Set(requests.map((r) => r.taskId));
    const ended = await waitFor(
      () => {
        const found = outcomes.events().filter((e) => ids.has(e.taskId) && ['TaskCompleted', 'TaskFailed'].includes(e.eventType));
        return found.length >= 1000 && found;
      },
      { what: '1,000 outcomes on the partner topic', timeoutMs: 170_000, intervalMs: 500 },
    );
    expect(ended.filter((e) => e.eventType === 'TaskCompleted')).toHaveLength(20);
    expect(ended.filter((e) => e.eventType === 'TaskFailed').map((e) => (e as { errorCode?: string }).errorCode)).toEqual(
      Array(980).fill('INSUFFICIENT_QUOTA'),
    );
    expect((await budget(inventor.name, { headers: await asAdmin() })).body).toMatchObject({ drawn: 20, drawCap: 20 });
    // And the HTTP user's and the other partner's tasks all completed, each charged to its own user alone
    for (const task of httpTasks) expect(await platform.settled(task.body.taskId as string, 120_000)).toMatchObject({ state: 'SUCCESS' });
    expect(await platform.settled(neighbourRequest.taskId, 120_000)).toMatchObject({ state: 'SUCCESS', userId: neighbourUser });
    expect(await platform.quota(httpUser)).toMatchObject({ debited: 3, balance: 7 });
    expect(await platform.quota(neighbourUser)).toMatchObject({ debited: 1 });
    expect((await budget(neighbour.name, { headers: await asAdmin() })).body).toMatchObject({ drawn: 10 });
  });
});
