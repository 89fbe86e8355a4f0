import * as path from 'node:path';
import { loadConfig, register } from 'tsconfig-paths';

/** The `db` tier needs PostgreSQL alone: bring the stack's database up (a no-op when it already is), nothing else. */
export default async function databaseSetup(): Promise<void> {
  // Global setup runs outside jest's module mapper, so the @app/* aliases need registering here.
  const config = loadConfig(path.resolve(__dirname, '..', '..'));
  if (config.resultType === 'success') register({ baseUrl: config.absoluteBaseUrl, paths: config.paths });
  const { loadStackConfig } = await import('../../tools/stack/stack.config');
  const { startPostgres } = await import('../../tools/stack/postgres');
  process.stdout.write(`  postgres: ${await startPostgres(loadStackConfig())}\n`);
}
