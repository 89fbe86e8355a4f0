import { createKafka, provisionTopicsAndAcls } from '@app/messaging';

/**
 * `npx ts-node tools/kafka/provision.cli.ts`: the platform's topics (behind TOPIC_PREFIX) and every
 * principal's ACLs, for a deployment other than the local stack (whose stack:up does this). Run it
 * as a principal allowed to create topics and ACLs (KAFKA_USERNAME / KAFKA_PASSWORD of an admin).
 */
const brokers = (process.env.KAFKA_BROKERS || '127.0.0.1:19092').split(',');
provisionTopicsAndAcls(createKafka('provision', brokers), process.env.TOPIC_PREFIX ?? '').then(
  (acls) => {
    process.stdout.write(`topics ready; ${acls === 'no authorizer' ? 'the broker enforces no ACLs, so none were granted' : 'ACLs granted'}\n`);
    process.exit(0);
  },
  (error: Error) => {
    process.stderr.write(`provisioning failed: ${error.message}\n`);
    process.exit(1);
  },
);
