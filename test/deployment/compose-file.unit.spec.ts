import * as fs from 'node:fs';
import { kafkaPrincipals } from '@app/catalogue';
import * as path from 'node:path';
import { load } from 'js-yaml';
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
    // Tasks and generation open users' inputs: they alone are given the master keys (docs/privacy.md).
    const personal = ['tasks', 'generation'].includes(name);
    expect(service.secrets).toEqual([`kafka-${name}`, `registry-${name}`, ...(personal ? ['master-keys'] : [])]);
    if (personal) expect(service.environment).toMatchObject({ MASTER_KEYS_FILE: '/run/secrets/master-keys' });
    else expect(service.environment).not.toHaveProperty('MASTER_KEYS_FILE');
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

  describe('with docker/compose.cluster.yml laid over it', () => {
    const cluster = load(fs.readFileSync(path.join(__dirname, '../../docker/compose.cluster.yml'), 'utf8')) as {
      services: Record<string, ComposeService>;
    };
    // Compose merges `environment` key by key, and a service the overlay adds is taken whole.
    const merged = (name: string): ComposeService => ({
      ...compose.services[name],
      ...cluster.services[name],
      environment: { ...compose.services[name]?.environment, ...cluster.services[name]?.environment },
    });
    const nodes = ['kafka', 'kafka-2', 'kafka-3'];

    it('runs three nodes of one quorum, each its own id, every topic kept three times', () => {
      const envs = nodes.map((node) => merged(node).environment!);
      expect(envs.map((env) => env.KAFKA_NODE_ID)).toEqual(['1', '2', '3']);
      expect(new Set(envs.map((env) => env.KAFKA_CLUSTER_ID)).size).toBe(1);
      for (const env of envs) {
        expect(env.KAFKA_CONTROLLER_QUORUM_VOTERS).toBe('1@kafka:9093,2@kafka-2:9093,3@kafka-3:9093');
        expect(env.KAFKA_REPLICATION_FACTOR).toBe('3');
      }
      expect(new Set(nodes.map((node) => merged(node).ports?.[0])).size).toBe(3);
    });

    it('formats every node with every principal, and gives every service the three brokers', () => {
      for (const node of nodes) expect([...(merged(node).secrets ?? [])].sort()).toEqual(kafkaPrincipals.map((p) => `kafka-${p}`).sort());
      for (const name of [...services, 'provision']) expect(merged(name).environment?.KAFKA_BROKERS).toBe('kafka:9092,kafka-2:9092,kafka-3:9092');
      // What the overlay leaves alone stays as the main file says it (each service's own principal).
      expect(merged('tasks').environment).toMatchObject({ KAFKA_USERNAME: 'tasks', KAFKA_PASSWORD_FILE: '/run/secrets/kafka-tasks' });
    });

    it('asks the broker script for two in-sync copies and no unclean election when it is given three replicas', () => {
      const script = fs.readFileSync(path.join(__dirname, '../../docker/kafka/start-broker.sh'), 'utf8');
      expect(script).toContain('if [ "$REPLICAS" -ge 3 ]; then MIN_IN_SYNC=2; else MIN_IN_SYNC=1; fi');
      expect(script).toContain('min.insync.replicas=$MIN_IN_SYNC');
      expect(script).toContain('unclean.leader.election.enable=false');
      expect(script).toContain('node.id=$NODE_ID');
    });
  });
});
