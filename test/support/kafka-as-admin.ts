import { localKafkaEnv } from '@app/messaging';

// Test code talks to Kafka as the local stack's admin (it makes topics and ACLs, and reads every
// topic); each service a test starts gets its own principal instead (TestEnv.serviceEnv).
if (!process.env.KAFKA_USERNAME) Object.assign(process.env, localKafkaEnv('admin'));
