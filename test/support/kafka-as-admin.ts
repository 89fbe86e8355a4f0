import { localKafkaEnv, localRegistryEnv } from '@app/kafka';

// Test code talks to Kafka and the registry as the local stack's admin (it makes topics, ACLs and
// schemas, and reads every topic); each service a test starts gets its own principal instead
// (TestEnv.serviceEnv).
if (!process.env.KAFKA_USERNAME) Object.assign(process.env, localKafkaEnv('admin'));
if (!process.env.SCHEMA_REGISTRY_USERNAME) Object.assign(process.env, localRegistryEnv('admin'));
