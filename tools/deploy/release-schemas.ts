import * as fs from 'node:fs';
import * as path from 'node:path';
import { EventType, isEventType, loadSchemaFrom, subjectFor, topicFor } from '@app/events';
import { basicAuthorization, RegistryCredentials } from '@app/kafka';
import type { Release } from './release';

/**
 * A release's own event schemas registered beside the head's, as provisioning does before a
 * release's instances start (the services only look their schema's id up). Where a schema changed,
 * the subject then holds both versions, and the registry's compatibility rule checked the step.
 */
export async function registerReleaseSchemas(
  release: Release,
  registryUrl: string,
  admin: RegistryCredentials | undefined,
  topicPrefix = '',
): Promise<EventType[]> {
  const dir = path.join(release.dir, 'schemas');
  const types = fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.avsc'))
    .map((file) => file.slice(0, -'.avsc'.length))
    .filter(isEventType);
  for (const type of types) {
    const schema = JSON.stringify(loadSchemaFrom(dir, type));
    const subject = subjectFor(topicFor(type, topicPrefix));
    const response = await fetch(`${registryUrl}/subjects/${subject}/versions`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json', ...basicAuthorization(admin) },
      body: JSON.stringify({ schema }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`registering ${type} of ${release.commit.slice(0, 10)} under ${subject}: ${response.status} ${await response.text()}`);
  }
  return types;
}
