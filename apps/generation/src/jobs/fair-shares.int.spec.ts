import { randomUUID } from 'node:crypto';
import { createKnex } from '@app/database';
import { ReactionWorld } from '@test/reaction-world';
import { generationMigrations } from '../migrations';
import { claimDueJobs, startAttempts } from './job-store';

const leaseMs = 60_000;
const share = 8;
/** An instance's free slots, none kept for newcomers unless told. */
const slots = (free: number, keptForNewcomers = 0) => ({ defaultShare: share, free, keptForNewcomers });

describe('generation: fair claiming of due jobs', () => {
  const world = new ReactionWorld('generation', generationMigrations);
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());
  beforeEach(async () => {
    await world.db.raw('truncate generation_attempts, generation_jobs, user_shares, outbox cascade');
  });

  /** `count` jobs of `userId`, due since `secondsAgo` (the first the oldest), with `attempts` already made. */
  async function jobs(userId: string, count: number, { secondsAgo = 60, status = 'scheduled', attempts = 0 } = {}): Promise<string[]> {
    const rows = Array.from({ length: count }, (_, i) => ({
      task_id: randomUUID(),
      user_id: userId,
      correlation_id: randomUUID(),
      report_type: 'summary',
      input: '{}',
      debit_event_id: randomUUID(),
      status,
      attempts,
      next_attempt_at: new Date(Date.now() - (secondsAgo - i / 100) * 1000),
    }));
    for (let i = 0; i < rows.length; i += 500) await world.db('generation_jobs').insert(rows.slice(i, i + 500));
    return rows.map((row) => row.task_id);
  }

  const running = async (userId: string) => Number((await world.db('generation_jobs').where({ user_id: userId, status: 'running' }).count({ n: '*' }))[0].n);

  it('given two users with 500 due jobs each, then two quiet users’ jobs, one a retry, are claimed by the first claim with a free slot', async () => {
    // Given two busy users' backlogs, due long before the quiet users' jobs
    await jobs('busy-1', 500, { secondsAgo: 600 });
    await jobs('busy-2', 500, { secondsAgo: 600 });
    const [quiet] = await jobs('quiet', 1, { secondsAgo: 1 });
    const [retried] = await jobs('quiet-retried', 1, { secondsAgo: 1, attempts: 1 });

    // When an instance with four free slots claims
    const { jobs: claimed, waiting } = await claimDueJobs(world.db, leaseMs, slots(4));

    // Then both quiet users' jobs are among them (a window of the oldest due would hold only the busy users')
    expect(claimed.map((job) => job.task_id)).toEqual(expect.arrayContaining([quiet, retried]));
    expect(claimed.find((job) => job.task_id === retried)?.attempts).toBe(2);
    expect(new Set(claimed.map((job) => job.user_id))).toEqual(new Set(['busy-1', 'busy-2', 'quiet', 'quiet-retried']));
    expect(waiting).toBe(true);
  });

  it('given a user already running their share, then none of their due jobs is claimed, and another user’s is', async () => {
    await jobs('at-share', share, { status: 'running' });
    await jobs('at-share', 20);
    const [other] = await jobs('other', 1, { secondsAgo: 1 });
    const { jobs: claimed } = await claimDueJobs(world.db, leaseMs, slots(16));
    expect(claimed.map((job) => job.task_id)).toEqual([other]);
    expect(await running('at-share')).toBe(share);
  });

  it('given two instances starting jobs at once, from debits and from claims, then a user never runs more than their share, the default or one an operator set', async () => {
    // Given a user with a share of 3 set by an operator, another with the default, and deep backlogs
    await world.db('user_shares').insert({ user_id: 'limited', max_running: 3, set_by: 'ops' });
    const limited = await jobs('limited', 100);
    await jobs('default', 100);
    const second = createKnex(world.url, 10);
    try {
      // When ten debits, on two instances (two pools), each make five of the user's jobs due and start
      // them at the same moment (each has its rows before any starts), while the instances claim ten
      // slots twenty times
      const instances = [world.db, second];
      let holding = 0;
      let allHold: () => void;
      const everyDebitHoldsItsRows = new Promise<void>((resolve) => (allHold = resolve));
      const startedByDebits = (i: number) =>
        instances[i % 2].transaction(async (trx) => {
          const rows = await trx('generation_jobs')
            .whereIn('task_id', limited.slice(i * 5, i * 5 + 5))
            .forUpdate();
          if (++holding === 10) allHold();
          await everyDebitHoldsItsRows;
          return startAttempts(trx, rows, leaseMs, slots(5));
        });
      await Promise.all([
        ...Array.from({ length: 10 }, (_, i) => startedByDebits(i)),
        ...Array.from({ length: 20 }, (_, i) => claimDueJobs(instances[i % 2], leaseMs, slots(10))),
      ]);

      // Then each user runs exactly their share, not a share per start or per instance
      expect(await running('limited')).toBe(3);
      expect(await running('default')).toBe(share);
    } finally {
      await second.destroy();
    }
  });

  it('given the last free slots kept for newcomers, then a busy user does not take them, and a user who runs nothing does', async () => {
    // Given a busy user running one attempt with a backlog, and a newcomer with one due job
    await jobs('busy', 1, { status: 'running' });
    await jobs('busy', 10);
    const [newcomer] = await jobs('newcomer', 1, { secondsAgo: 1 });

    // When an instance with four free slots, the last two kept for newcomers, claims
    const { jobs: claimed, waiting } = await claimDueJobs(world.db, leaseMs, slots(4, 2));

    // Then the newcomer's job and one of the busy user's are started, and the last two slots stay free
    expect(claimed.map((job) => job.user_id).sort()).toEqual(['busy', 'newcomer']);
    expect(claimed.map((job) => job.task_id)).toContain(newcomer);
    expect(waiting).toBe(true);
    expect(await running('busy')).toBe(2);
  });
});
