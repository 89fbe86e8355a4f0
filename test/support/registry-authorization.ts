import { basicAuthorization, registryAuthFromEnv } from '@app/kafka';

/** The Authorization header of the test process's registry principal (admin: kafka-as-admin.ts). */
export function registryAuthorization(): Record<string, string> {
  return basicAuthorization(registryAuthFromEnv());
}
