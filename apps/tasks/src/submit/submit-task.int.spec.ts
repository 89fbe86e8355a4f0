import { randomBytes } from 'node:crypto';
import { masterKeysOf, PersonalData } from '@app/personal-data';
import { ProblemWithHeaders } from '@app/service';
import { ReactionWorld } from '@test/reaction-world';
import { tasksMigrations } from '../migrations';
import { loadTasksConfig } from '../tasks.config';
import { claimKey } from './claim-key';
import { requestHash } from './request-hash';
import { submitTask } from './submit-task';

const config = loadTasksConfig({ IDEMPOTENCY_LOCK_TIMEOUT: '300ms' });
const personal = new PersonalData(masterKeysOf(JSON.stringify({ current: 'mk-1', keys: { 'mk-1': randomBytes(32).toString('base64') } })));
const submission = (userId: string) => ({ userId, reportType: 'summary', input: { topic: 'tides' } });

describe('POST /tasks in the database: the key claimed, waited for, replayed', () => {
  const world = new ReactionWorld('tasks', tasksMigrations);
  beforeAll(() => world.setup());
  afterAll(() => world.teardown());

  it('accepts a task once, and replays its answer for the same key and body', async () => {
    const first = await submitTask(world.db, config, personal, 'key-a', submission('ann'));
    expect(first).toMatchObject({ status: 202, replayed: false, body: { state: 'QUEUED', userId: 'ann' } });
    const again = await submitTask(world.db, config, personal, 'key-a', submission('ann'));
    expect(again).toEqual({ ...first, replayed: true });
    expect(await world.db('tasks').where({ user_id: 'ann' }).count<Array<{ count: string }>>('* as count')).toEqual([{ count: '1' }]);
  });

  it('answers 409 once the lock timeout passes while another request holds the key, and leaves nothing', async () => {
    const holder = await world.db.transaction();
    try {
      const scope = { user_id: 'bob', route: 'POST /tasks', key: 'key-b' };
      expect(await claimKey(holder, scope, requestHash(submission('bob')), '00000000-0000-4000-8000-000000000001', 60_000)).toBeUndefined();
      const started = Date.now();
      const waited = await submitTask(world.db, config, personal, 'key-b', submission('bob')).catch((error: unknown) => error);
      expect(waited).toBeInstanceOf(ProblemWithHeaders);
      expect((waited as ProblemWithHeaders).getStatus()).toBe(409);
      expect((waited as ProblemWithHeaders).message).toContain('still in progress');
      // It waited for the holder, up to the timeout: not refused at once, not held for good.
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    } finally {
      await holder.rollback();
    }
    expect(await world.db('tasks').where({ user_id: 'bob' }).count<Array<{ count: string }>>('* as count')).toEqual([{ count: '0' }]);
    // The holder gone, the key is free.
    expect(await submitTask(world.db, config, personal, 'key-b', submission('bob'))).toMatchObject({ status: 202, replayed: false });
  });
});
