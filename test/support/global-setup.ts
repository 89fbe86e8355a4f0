import * as path from 'node:path';
import { loadConfig, register } from 'tsconfig-paths';

/** The suites run against the real stack: bring it up (a no-op when it already is). */
export default async function globalSetup(): Promise<void> {
  // Global setup runs outside jest's module mapper, so the @app/* aliases need registering here.
  const config = loadConfig(path.resolve(__dirname, '..', '..'));
  if (config.resultType === 'success') register({ baseUrl: config.absoluteBaseUrl, paths: config.paths });
  const { stackUp } = await import('../../tools/stack/stack');
  await stackUp(undefined, (line) => process.stdout.write(`  stack: ${line}\n`));
}
