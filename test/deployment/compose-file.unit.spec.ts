import * as fs from 'node:fs';
import * as path from 'node:path';
import { load } from 'js-yaml';
import { kafkaPrincipals } from '@app/messaging';

interface ComposeService {
  environment?: Record<string, string | number>;
  secrets?: string[];
  volumes?: string[];
}

/** docker/compose.yml cannot be run here (no Docker engine): its security wiring is checked as data. */
describe('docker/compose.yml', () => {
  const compose = load(fs.readFileSync(path.join(__dirname, '../../docker/compose.yml'), 'utf8')) as {
    services: Record<string, ComposeService>;
    secrets: Record<string, { file: string }>;
  };
  const services = ['tasks', 'quota', 'generation', 'notification'];

  it.each(services)('%s connects to Kafka as its own principal, with its own secret only', (name) => {
    const service = compose.services[name];
    expect(service.environment).toMatchObject({
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_USERNAME: name,
      KAFKA_PASSWORD_FILE: `/run/secrets/kafka-${name}`,
    });
    expect(service.secrets).toEqual([`kafka-${name}`]);
    expect(service.environment).not.toHaveProperty('KAFKA_PASSWORD');
  });

  it('mounts no private key into a service (only the public key set, and the sealing key for notification)', () => {
    for (const name of services) {
      const mounted = (compose.services[name].volumes ?? []).map((volume) => volume.split(':')[0]);
      expect(mounted.filter((file) => !file.endsWith('jwks.json') && !(name === 'notification' && file.endsWith('webhook-secret.key')))).toEqual([]);
    }
  });

  it('formats the broker with every principal, each from its own password file, and provisions as admin', () => {
    expect([...(compose.services.kafka.secrets ?? [])].sort()).toEqual(kafkaPrincipals.map((p) => `kafka-${p}`).sort());
    for (const principal of kafkaPrincipals) expect(compose.secrets[`kafka-${principal}`].file).toBe(`../.stack/auth/kafka-${principal}.password`);
    expect(compose.services.provision.environment).toMatchObject({ KAFKA_USERNAME: 'admin', KAFKA_PASSWORD_FILE: '/run/secrets/kafka-admin' });
  });
});
