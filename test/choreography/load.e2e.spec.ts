import { Platform } from '../support/platform';

describe('many tasks at once', () => {
  const platform = new Platform();
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  it('takes 100 concurrent tasks of 10 users with mixed failures each to one outcome, charging only the successful ones', async () => {
    // Given a mix: success, transient then success, permanent failure, retries exhausted
    const simulations = [{}, { transientFailures: 1 }, { permanentFailure: true }, { transientFailures: 99 }];
    const users = Array.from({ length: 10 }, (_, u) => `load-user-${u}`);

    // When 100 tasks are submitted at once
    const submitted = await Promise.all(
      Array.from({ length: 100 }, (_, i) => platform.submit(users[i % 10], { i, simulate: simulations[Math.floor(i / 10) % 4] }, `load-${i}`)),
    );
    expect(submitted.every((s) => s.status === 202)).toBe(true);

    // Then every task settles, to the outcome its simulation calls for
    const tasks = await Promise.all(submitted.map((s) => platform.settled(s.body.taskId, 120_000)));
    const expectedState = (i: number) => (Math.floor(i / 10) % 4 < 2 ? 'SUCCESS' : 'COMPENSATED');
    expect(tasks.map((t) => t.state)).toEqual(tasks.map((_, i) => expectedState(i)));

    // And per user: balance = 10 − successful tasks, one debit per task, one refund per failed task
    for (const user of users) {
      const mine = tasks.filter((t) => t.userId === user);
      const successful = mine.filter((t) => t.state === 'SUCCESS').length;
      expect({ user, ...(await platform.quota(user)) }).toMatchObject({
        user,
        balance: 10 - successful,
        debited: mine.length,
        refunded: mine.length - successful,
      });
      // And one notification per task
      const notes = await platform.notifications(user);
      expect(notes).toHaveLength(mine.length);
      expect(new Set(notes.map((n) => n.taskId)).size).toBe(mine.length);
    }
  });
});
