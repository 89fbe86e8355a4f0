import { defaults } from '@app/config';
import { basicAuthorization, registryAuthFromEnv } from '@app/kafka';

/** The Authorization header of the test process's registry principal (admin: kafka-as-admin.ts). */
export function registryAuthorization(): Record<string, string> {
  return basicAuthorization(registryAuthFromEnv());
}

/** Registers a schema under `subject` (a test's own); the registry's id for it. */
export async function registerSchema(subject: string, schema: object): Promise<number> {
  const response = await fetch(`${defaults.schemaRegistryUrl}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json', ...registryAuthorization() },
    body: JSON.stringify({ schema: JSON.stringify(schema) }),
  });
  if (response.status !== 200) throw new Error(`registering under ${subject}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: number }).id;
}
