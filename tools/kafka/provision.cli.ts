import { createKafka, EventCodec, registryAuthFromEnv } from '@app/kafka';
import { provisionTopicsAndAcls, registerSchemas, setGlobalCompatibility } from '@app/kafka-admin';

/**
 * `npx ts-node tools/kafka/provision.cli.ts`: the platform's topics (behind TOPIC_PREFIX), every
 * principal's ACLs and every event's schema, for a deployment other than the local stack (whose
 * stack:up does this). Run it as the principal allowed to create topics, ACLs and schemas: admin's
 * KAFKA_USERNAME / KAFKA_PASSWORD(_FILE) and SCHEMA_REGISTRY_USERNAME / SCHEMA_REGISTRY_PASSWORD(_FILE).
 */
const brokers = (process.env.KAFKA_BROKERS || '127.0.0.1:19092').split(',');
const registryUrl = process.env.SCHEMA_REGISTRY_URL || 'http://127.0.0.1:18081/apis/ccompat/v7';
const prefix = process.env.TOPIC_PREFIX ?? '';

async function provision(): Promise<string> {
  const acls = await provisionTopicsAndAcls(createKafka('provision', brokers), prefix);
  await setGlobalCompatibility(registryUrl, registryAuthFromEnv());
  const schemas = await registerSchemas(new EventCodec(registryUrl, prefix));
  return `topics ready; ${acls === 'no authorizer' ? 'the broker enforces no ACLs, so none were granted' : 'ACLs granted'}; ${schemas} schemas registered`;
}

provision().then(
  (summary) => {
    process.stdout.write(`${summary}\n`);
    process.exit(0);
  },
  (error: Error) => {
    process.stderr.write(`provisioning failed: ${error.message}\n`);
    process.exit(1);
  },
);
