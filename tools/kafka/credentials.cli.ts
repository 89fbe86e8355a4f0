import { localKafkaEnv, localRegistryEnv } from '@app/kafka';
import { KafkaPrincipal, kafkaPrincipals, PartnerPrincipal } from '@app/catalogue';
import { localAuthFiles } from '@app/auth';

/**
 * `npm run -s kafka:credentials -- <principal>`: the environment lines a client of the local stack
 * needs to act as that principal — on the brokers (SCRAM) and on the schema registry (HTTP Basic,
 * a password of its own) — ready for `export` or an env file.
 */
const principal = process.argv[2] as KafkaPrincipal | PartnerPrincipal | undefined;
if (!principal || !(kafkaPrincipals.includes(principal as KafkaPrincipal) || principal.startsWith('partner-'))) {
  process.stderr.write(`usage: npm run -s kafka:credentials -- <${kafkaPrincipals.join('|')}|partner-<name>>\n`);
  process.exit(2);
}
const kafka = localKafkaEnv(principal);
const registry = localRegistryEnv(principal);
if (!kafka.KAFKA_USERNAME || !registry.SCHEMA_REGISTRY_USERNAME) {
  process.stderr.write(`no credentials at ${localAuthFiles().dir}: run npm run stack:up first\n`);
  process.exit(2);
}
const lines = {
  KAFKA_BROKERS: process.env.KAFKA_BROKERS || '127.0.0.1:19092',
  ...kafka,
  SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL || 'http://127.0.0.1:18081/apis/ccompat/v7',
  ...registry,
};
process.stdout.write(
  Object.entries(lines)
    .map(([name, value]) => `${name}=${value}`)
    .join('\n') + '\n',
);
process.stdout.write(`# TLS instead: KAFKA_BROKERS=127.0.0.1:19094 KAFKA_SSL=on KAFKA_SSL_CA=${localAuthFiles().kafkaCa}\n`);
process.stdout.write(
  `# Confluent-style registry clients: basic.auth.credentials.source=USER_INFO basic.auth.user.info=${principal}:${registry.SCHEMA_REGISTRY_PASSWORD}\n`,
);
