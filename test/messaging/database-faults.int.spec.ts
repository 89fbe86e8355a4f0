import type { Knex } from 'knex';
import { createKnex } from '@app/database';
import { HandlerContext } from '@app/messaging';
import { ConsumerRunner } from '@app/messaging/testing';
import { MessagingWorld, taskRequested } from '../support/messaging-world';
import { waitFor } from '../support/wait-for';

/**
 * Each way PostgreSQL says "not now" that can be made to happen on a real server — a read-only
 * database (a failover), a cancelled query, a terminated backend, a login that is refused, a lock
 * that is not granted — met by a consumer in the middle of its work: it waits, dead-letters nothing,
 * and handles every event exactly once when the fault ends.
 */
describe('a consumer whose database fails the ways PostgreSQL fails', () => {
  const world = new MessagingWorld();
  const database = new URL(world.databaseUrl).pathname.slice(1);
  const role = `consumer_${world.env.suffix}`;
  let server: Knex;
  let runner: ConsumerRunner;
  /** Per note, what the main consumer's handler does before its write, given the attempt (from 1). */
  const before = new Map<string, (trx: Knex.Transaction, attempt: number) => Promise<unknown>>();
  const attempts = new Map<string, number>();

  const handle =
    (name: string) =>
    async (event: { eventId: string; input: string }, { trx }: HandlerContext) => {
      const note = (JSON.parse(event.input) as { note: string }).note;
      const attempt = (attempts.get(`${name}:${note}`) ?? 0) + 1;
      attempts.set(`${name}:${note}`, attempt);
      if (name === 'db-faults') await before.get(note)?.(trx, attempt);
      await trx('effects').insert({ event_id: event.eventId, note: name });
    };
  const effects = async (eventIds: string[], name = 'db-faults') =>
    Number((await world.db('effects').whereIn('event_id', eventIds).where({ note: name }).count('* as n').first())!.n);
  const terminateBackends = (where: string) => server.raw(`select pg_terminate_backend(pid) from pg_stat_activity where ${where} and pid <> pg_backend_pid()`);
  const backendRunning = (sql: string) =>
    waitFor(
      async () =>
        (
          await server('pg_stat_activity')
            .where({ datname: database })
            .where('query', 'like', `%${sql}%`)
            .whereNot('query', 'like', '%pg_stat_activity%')
            .first()
        )?.pid,
      {
        what: `a backend running ${sql}`,
      },
    );

  beforeAll(async () => {
    await world.setup();
    server = createKnex(world.env.serverUrl, 2);
    runner = await world.consumer({ TaskRequested: handle('db-faults') }, { name: 'db-faults' });
  });
  afterAll(async () => {
    await server.raw(`alter database "${database}" reset default_transaction_read_only`).catch(() => undefined);
    await world.teardown();
    await server.raw(`drop role if exists "${role}"`).catch(() => undefined);
    await server.destroy();
  });

  it('waits out a database that turned read-only (SQLSTATE 25006, a failover) and handles every event once it is writable', async () => {
    // Given the database is read-only, as a failed-over primary is to its clients
    await server.raw(`alter database "${database}" set default_transaction_read_only = on`);
    await terminateBackends(`datname = '${database}'`);
    const outagesBefore = runner.stats.outages;

    // When five events arrive
    const events = Array.from({ length: 5 }, (_, i) => taskRequested(undefined, `read-only ${i}`));
    await world.publish(events);

    // Then the consumer meets the read-only database again and again, and writes nothing
    await waitFor(() => runner.stats.outages >= outagesBefore + 3, { what: 'the consumer to meet the read-only database three times' });
    expect(await effects(events.map((e) => e.eventId))).toBe(0);

    // When the database is writable again
    await server.raw(`alter database "${database}" reset default_transaction_read_only`);
    await terminateBackends(`datname = '${database}'`);

    // Then every event is handled, once, and nothing was dead-lettered
    await waitFor(async () => (await effects(events.map((e) => e.eventId))) === 5, { what: 'the five events handled', timeoutMs: 60_000 });
    expect(runner.stats.deadLettered).toBe(0);
  });

  it.each([
    ['cancelled (SQLSTATE 57014)', 'pg_cancel_backend'],
    ['terminated (SQLSTATE 57P01)', 'pg_terminate_backend'],
  ])('tries again when its query is %s mid-handler', async (_, stop) => {
    // Given a handler whose first attempt runs a long query
    const note = `${stop} me`;
    before.set(note, (trx, attempt) => (attempt === 1 ? trx.raw('select pg_sleep(60) as slow_handler_query') : Promise.resolve()));
    const event = taskRequested(undefined, note);
    await world.publish([event]);

    // When an operator (or a failover) stops that query
    const pid = await backendRunning('slow_handler_query');
    await server.raw(`select ${stop}(?)`, [pid]);

    // Then the event is handled once, on a second attempt, and not dead-lettered
    await waitFor(async () => (await effects([event.eventId])) === 1, { what: 'the event handled after its query was stopped' });
    expect(attempts.get(`db-faults:${note}`)).toBe(2);
    expect(runner.stats.deadLettered).toBe(0);
  });

  it('waits while a lock it needs is not granted (SQLSTATE 55P03) and goes on once it is', async () => {
    // Given a row that another transaction holds, and a handler that needs it under a lock timeout
    const [target] = await world.db('effects').insert({ event_id: taskRequested().eventId, note: 'lock target' }).returning('id');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const holder = world.db.transaction(async (trx) => {
      await trx('effects').where({ id: target.id }).forUpdate();
      await released;
    });
    const note = 'needs the locked row';
    const event = taskRequested(undefined, note);
    before.set(note, async (trx) => {
      await trx.raw(`set local lock_timeout = '100ms'`);
      await trx('effects').where({ id: target.id }).forUpdate();
    });
    const outagesBefore = runner.stats.outages;

    // When the event arrives while the row is held
    await world.publish([event]);
    await waitFor(() => runner.stats.outages >= outagesBefore + 2, { what: 'the handler to be refused the lock twice' });
    expect(await effects([event.eventId])).toBe(0);

    // Then, once the lock is released, it is handled once
    release();
    await holder;
    await waitFor(async () => (await effects([event.eventId])) === 1, { what: 'the event handled after the lock was released' });
    expect(runner.stats.deadLettered).toBe(0);
  });

  it('waits while its login is refused (SQLSTATE 28000, as after a revoked or rotated credential) and goes on once it is restored', async () => {
    // Given a consumer that logs in as a role of its own
    await server.raw(`create role "${role}" login`);
    await world.db.raw(`grant all on all tables in schema public to "${role}"`);
    await world.db.raw(`grant all on all sequences in schema public to "${role}"`);
    const url = new URL(world.databaseUrl);
    url.username = role;
    const roleDb = createKnex(url.toString(), 2);
    world.onTeardown(() => roleDb.destroy());
    const asRole = await world.consumer({ TaskRequested: handle('as-role') }, { name: 'db-faults-login', db: roleDb });
    const outagesBefore = asRole.stats.outages;

    // When its login is revoked and its sessions ended (a login that passed its check just before the
    // revocation can still open a session: end them until none is left)
    await server.raw(`alter role "${role}" nologin`);
    await waitFor(
      async () => {
        await terminateBackends(`usename = '${role}'`);
        const [{ sessions }] = await server('pg_stat_activity').where({ usename: role }).count({ sessions: '*' });
        return Number(sessions) === 0;
      },
      { what: `no session of ${role} left` },
    );
    const event = taskRequested(undefined, 'while the login is refused');
    await world.publish([event]);

    // Then it waits, writing nothing
    // (once is enough to know: an acquire whose login is refused may wait out its 10 s acquire timeout)
    await waitFor(() => asRole.stats.outages > outagesBefore, { what: 'the consumer to be refused its login', timeoutMs: 60_000 });
    expect(await effects([event.eventId], 'as-role')).toBe(0);

    // When the login is restored
    await server.raw(`alter role "${role}" login`);

    // Then the event is handled once, and nothing was dead-lettered
    await waitFor(async () => (await effects([event.eventId], 'as-role')) === 1, { what: 'the event handled after the login came back', timeoutMs: 60_000 });
    expect(asRole.stats.deadLettered).toBe(0);
  });
});
