import { registryAuthFromEnv } from '@app/messaging';

/** The Authorization header of the test process's registry principal (admin: kafka-as-admin.ts). */
export function registryAuthorization(): Record<string, string> {
  const auth = registryAuthFromEnv();
  return auth ? { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` } : {};
}
