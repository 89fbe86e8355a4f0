import * as fs from 'node:fs';
import * as path from 'node:path';
import { load } from 'js-yaml';
import { patroniTimeouts, proxyConfig } from '../../tools/stack/postgres-ha.config';

interface ComposeService {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
}

const docker = path.join(__dirname, '../../docker');
const read = (file: string) => fs.readFileSync(path.join(docker, file), 'utf8');

/** docker/compose.postgres-ha.yml cannot be run here (no Docker engine): checked as data, against what the local stack runs. */
describe('docker/compose.postgres-ha.yml laid over docker/compose.yml', () => {
  const overlay = load(read('compose.postgres-ha.yml')) as { services: Record<string, ComposeService> };
  const main = load(read('compose.yml')) as { services: Record<string, ComposeService & { environment?: Record<string, string> }> };
  const patroni = load(read('postgres-ha/patroni.yml')) as {
    etcd3: { hosts: string };
    bootstrap: { dcs: Record<string, unknown> & { postgresql: { use_pg_rewind: boolean; parameters: Record<string, unknown> } }; post_bootstrap: string };
  };

  it('puts HAProxy where the services look for the database, in front of two Patroni nodes', () => {
    expect(overlay.services.postgres.image).toMatch(/^haproxy:2\.6/);
    expect(overlay.services.postgres.depends_on).toEqual({
      'postgres-1': { condition: 'service_healthy' },
      'postgres-2': { condition: 'service_healthy' },
    });
    expect(new URL(main.services.tasks.environment!.DATABASE_URL).hostname).toBe('postgres');
    for (const node of ['postgres-1', 'postgres-2']) {
      expect(overlay.services[node].build).toBeDefined();
      expect(overlay.services[node].environment).toMatchObject({ PATRONI_NAME: node, PATRONI_POSTGRESQL_CONNECT_ADDRESS: `${node}:5432` });
    }
  });

  it("routes to the node Patroni calls primary and shuts a demoted node's sessions, as the local stack's HAProxy does", () => {
    const nodes = ['postgres-1', 'postgres-2'].map((name) => ({ name, host: name, port: 5432, restPort: 8008 }));
    const config = read('postgres-ha/haproxy.cfg');
    expect(config).toBe(proxyConfig('*:5432', nodes));
    expect(config).toContain('option httpchk GET /primary');
    expect(config).toContain('on-marked-down shutdown-sessions');
  });

  it("bootstraps with the local stack's guarantee: synchronous mode, pg_rewind with hint bits logged, its timeouts, etcd's v3 API", () => {
    const dcs = patroni.bootstrap.dcs;
    expect(dcs).toMatchObject({ ...patroniTimeouts, synchronous_mode: true, synchronous_mode_strict: false });
    expect(dcs.postgresql.use_pg_rewind).toBe(true);
    expect(dcs.postgresql.parameters.wal_log_hints).toBe('on');
    expect(patroni.etcd3.hosts).toBe('etcd:2379');
    // The databases the single server's init script makes, made once on the bootstrapping node.
    expect(read('postgres-ha/Dockerfile')).toContain('COPY init-databases.sql /etc/patroni/init-databases.sql');
    expect(read('postgres-ha/post-bootstrap.sh')).toContain('-f /etc/patroni/init-databases.sql');
  });
});
