import * as fs from 'node:fs';
import * as path from 'node:path';
import { load } from 'js-yaml';
import { kafkaPrincipals } from '@app/messaging';
import { gateRules } from '../../tools/stack/registry-gate';

interface ComposeService {
  environment?: Record<string, string | number>;
  secrets?: string[];
  volumes?: string[];
  networks?: string[];
  ports?: string[];
}

/** docker/compose.yml cannot be run here (no Docker engine): its security wiring is checked as data. */
describe('docker/compose.yml', () => {
  const compose = load(fs.readFileSync(path.join(__dirname, '../../docker/compose.yml'), 'utf8')) as {
    services: Record<string, ComposeService>;
    secrets: Record<string, { file: string }>;
  };
  const services = ['tasks', 'quota', 'generation', 'notification'];

  it.each(services)("%s connects to Kafka and to the registry's gate as its own principal, with its own secrets only", (name) => {
    const service = compose.services[name];
    expect(service.environment).toMatchObject({
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_USERNAME: name,
      KAFKA_PASSWORD_FILE: `/run/secrets/kafka-${name}`,
      SCHEMA_REGISTRY_URL: 'http://registry-gate:8080/apis/ccompat/v7',
      SCHEMA_REGISTRY_USERNAME: name,
      SCHEMA_REGISTRY_PASSWORD_FILE: `/run/secrets/registry-${name}`,
    });
    expect(service.secrets).toEqual([`kafka-${name}`, `registry-${name}`]);
    expect(service.environment).not.toHaveProperty('KAFKA_PASSWORD');
    expect(service.environment).not.toHaveProperty('SCHEMA_REGISTRY_PASSWORD');
  });

  it('keeps the registry on a network only its gate and its database share, and publishes only the gate', () => {
    expect(compose.services.registry.networks).toEqual(['registry']);
    expect(compose.services.registry.ports).toBeUndefined();
    expect((compose as unknown as { networks: Record<string, { internal?: boolean }> }).networks.registry.internal).toBe(true);
    expect(compose.services['registry-gate'].networks).toEqual(['default', 'registry']);
    expect(compose.services['registry-gate'].ports).toEqual(['127.0.0.1:18081:8080']);
    for (const name of [...services, 'provision', 'kafka']) expect(compose.services[name].networks ?? ['default']).not.toContain('registry');
  });

  it("gives the compose gate the local stack's rules, and provisions the schemas as admin", () => {
    const gate = fs.readFileSync(path.join(__dirname, '../../docker/registry-gate.conf'), 'utf8');
    for (const rule of gateRules()) expect(gate).toContain(rule);
    expect(compose.services.provision.environment).toMatchObject({
      SCHEMA_REGISTRY_USERNAME: 'admin',
      SCHEMA_REGISTRY_PASSWORD_FILE: '/run/secrets/registry-admin',
    });
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
