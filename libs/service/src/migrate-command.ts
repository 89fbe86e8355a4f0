import { loadServiceConfig, ServiceName } from '@app/config';
import { createKnex, ensureDatabase, Migration, migrateToLatest, migrationStatus, rollbackLastBatch } from '@app/database';

export const migrateActions = ['status', 'latest', 'rollback'] as const;

/**
 * `node dist/apps/<service>/main.js migrate status|latest|rollback`: the service's own migrations
 * (they are code, bundled with it) against its configured database, without starting the service.
 * `npm run migrate` calls it. Prints what it did; the exit code says whether it could.
 */
export async function migrateCommand(
  service: ServiceName,
  migrations: Migration[],
  action: string | undefined,
  print: (line: string) => void,
): Promise<number> {
  if (!(migrateActions as readonly string[]).includes(action ?? '')) {
    print(`usage: migrate ${migrateActions.join('|')} (got "${action ?? ''}")`);
    return 2;
  }
  const { databaseUrl } = loadServiceConfig(service);
  if (action === 'latest') await ensureDatabase(databaseUrl);
  const knex = createKnex(databaseUrl, 2, { role: 'migration' });
  try {
    if (action === 'latest') await migrateToLatest(knex, migrations);
    if (action === 'rollback') {
      const undone = await rollbackLastBatch(knex, migrations);
      print(`${service}: rolled back ${undone.length ? undone.join(', ') : 'nothing'}`);
    }
    const { done, pending } = await migrationStatus(knex, migrations);
    for (const name of done) print(`${service}: applied  ${name}`);
    for (const name of pending) print(`${service}: pending  ${name}`);
    return 0;
  } finally {
    await knex.destroy();
  }
}
