import { eventTypes } from '@app/events';
import { basicAuthorization, EventCodec, RegistryCredentials } from '@app/kafka';

/**
 * Provisioning's other half: every event's schema registered under its subject (behind the codec's
 * topic prefix), as `admin`, the one registry principal allowed to write. The services only look
 * their ids up. One at a time: concurrent registrations of new subjects are what the registry has
 * stalled on. Running it again is harmless: a registered schema keeps its id.
 */
export async function registerSchemas(adminCodec: EventCodec): Promise<number> {
  for (const type of eventTypes) await adminCodec.register(type);
  return eventTypes.length;
}

/** The registry's global compatibility rule (the platform's schemas evolve BACKWARD), as `admin`. */
export async function setGlobalCompatibility(registryUrl: string, admin: RegistryCredentials | undefined, compatibility = 'BACKWARD'): Promise<void> {
  const response = await fetch(`${registryUrl}/config`, {
    method: 'PUT',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json', ...basicAuthorization(admin) },
    body: JSON.stringify({ compatibility }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`setting the registry's global compatibility failed: ${response.status} ${await response.text()}`);
}
