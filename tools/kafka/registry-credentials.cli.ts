import { KafkaPrincipal, kafkaPrincipals, localRegistryEnv } from '@app/messaging';
import { localAuthFiles } from '@app/auth';

/**
 * `npm run -s registry:credentials -- <principal>`: the environment lines a client of the local stack
 * needs to use the schema registry as that principal (`admin` may write; every other principal reads).
 */
const principal = process.argv[2] as KafkaPrincipal | undefined;
if (!principal || !kafkaPrincipals.includes(principal)) {
  process.stderr.write(`usage: npm run -s registry:credentials -- <${kafkaPrincipals.join('|')}>\n`);
  process.exit(2);
}
const env = localRegistryEnv(principal);
if (!env.SCHEMA_REGISTRY_USERNAME) {
  process.stderr.write(`no credentials at ${localAuthFiles().registryCredentials}: run npm run stack:up first\n`);
  process.exit(2);
}
const lines = { SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL || 'http://127.0.0.1:18081/apis/ccompat/v7', ...env };
process.stdout.write(
  Object.entries(lines)
    .map(([name, value]) => `${name}=${value}`)
    .join('\n') + '\n',
);
process.stdout.write(
  `# Confluent-style clients: basic.auth.credentials.source=USER_INFO basic.auth.user.info=${env.SCHEMA_REGISTRY_USERNAME}:${env.SCHEMA_REGISTRY_PASSWORD}\n`,
);
