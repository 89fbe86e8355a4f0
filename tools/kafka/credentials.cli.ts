import { KafkaPrincipal, kafkaPrincipals, localKafkaEnv } from '@app/messaging';
import { localAuthFiles } from '@app/auth';

/**
 * `npm run -s kafka:credentials -- <principal>`: the environment lines a client of the local stack
 * needs to connect as that principal, ready for `export` or an env file.
 */
const principal = process.argv[2] as KafkaPrincipal | undefined;
if (!principal || !kafkaPrincipals.includes(principal)) {
  process.stderr.write(`usage: npm run -s kafka:credentials -- <${kafkaPrincipals.join('|')}>\n`);
  process.exit(2);
}
const env = localKafkaEnv(principal);
if (!env.KAFKA_USERNAME) {
  process.stderr.write(`no credentials at ${localAuthFiles().kafkaCredentials}: run npm run stack:up first\n`);
  process.exit(2);
}
const lines = { KAFKA_BROKERS: process.env.KAFKA_BROKERS || '127.0.0.1:19092', ...env };
process.stdout.write(
  Object.entries(lines)
    .map(([name, value]) => `${name}=${value}`)
    .join('\n') + '\n',
);
process.stdout.write(`# TLS instead: KAFKA_BROKERS=127.0.0.1:19094 KAFKA_SSL=on KAFKA_SSL_CA=${localAuthFiles().kafkaCa}\n`);
