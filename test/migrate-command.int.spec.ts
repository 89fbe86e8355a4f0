import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { createKnex, dropDatabase } from '@app/database';
import { quotaMigrations } from '../apps/quota/src/migrations';
import { TestEnv } from './support/test-env';

const root = path.resolve(__dirname, '..');

/** `npm run migrate` on a service's own database, as an operator runs it. */
describe('npm run migrate', () => {
  const env = new TestEnv();
  const databaseUrl = env.databaseUrl('quota');
  afterAll(() => dropDatabase(databaseUrl));

  const migrate = (...args: string[]) => {
    const run = spawnSync('npx', ['ts-node', 'tools/migrate/cli.ts', ...args], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, QUOTA_DATABASE_URL: databaseUrl },
    });
    return { status: run.status, out: `${run.stdout}${run.stderr}` };
  };
  const lines = (out: string, state: 'applied' | 'pending') => out.split('\n').filter((l) => l.startsWith(`quota: ${state}`));

  it('applies every migration, says so, rolls the last batch back and applies it again', async () => {
    const latest = migrate('latest', '--service', 'quota');
    expect(latest.status).toBe(0);
    expect(lines(latest.out, 'applied')).toHaveLength(quotaMigrations.length);
    expect(lines(latest.out, 'pending')).toHaveLength(0);
    const knex = createKnex(databaseUrl);
    try {
      expect(await knex.schema.hasTable('quota_ledger')).toBe(true);

      const rollback = migrate('rollback', '--service', 'quota');
      expect(rollback.status).toBe(0);
      expect(rollback.out).toContain(
        `rolled back ${quotaMigrations
          .map((m) => m.name)
          .reverse()
          .join(', ')}`,
      );
      expect(lines(rollback.out, 'pending')).toHaveLength(quotaMigrations.length);
      expect(await knex.schema.hasTable('quota_ledger')).toBe(false);

      const status = migrate('status', '--service', 'quota');
      expect(status.status).toBe(0);
      expect(lines(status.out, 'pending').map((l) => l.split(/\s+/).pop())).toEqual(quotaMigrations.map((m) => m.name));
    } finally {
      await knex.destroy();
    }
  });

  it('refuses an unknown service or action with the reason, and changes nothing', () => {
    const unknownService = migrate('latest', '--service', 'billing');
    expect(unknownService.status).not.toBe(0);
    expect(unknownService.out).toContain('"billing" is not one of tasks, quota, generation, notification');
    const unknownAction = migrate('drop', '--service', 'quota');
    expect(unknownAction.status).not.toBe(0);
    expect(unknownAction.out).toContain('the action is status, latest or rollback');
  });
});
