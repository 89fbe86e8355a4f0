import type { StackConfig } from './stack.config';

/** A node of the replicated database: its PostgreSQL, its Patroni REST API, and where it keeps both. */
export interface PostgresNode {
  name: string;
  port: number;
  restPort: number;
  home: string;
  dataDir: string;
  configFile: string;
}

/**
 * Patroni's timeouts, for a 2-core machine that also runs three brokers: the leader renews its
 * lease every `loop_wait` and keeps it for `ttl`; a call to etcd may take `retry_timeout` before the
 * leader gives up and demotes itself (Patroni wants loop_wait + 2 × retry_timeout ≤ ttl). A primary
 * lost is thus failed over within ttl + loop_wait (30–40 s); a starved Patroni or etcd has 10 s of
 * slack per call before anything moves.
 */
export const patroniTimeouts = { ttl: 30, loop_wait: 10, retry_timeout: 10 };

/**
 * One node's Patroni configuration (JSON is YAML). Synchronous mode: a commit is acknowledged once
 * the standby has flushed it, and only a standby known to be synchronous may be promoted, so an
 * acknowledged commit survives a failover. Not strict: with the standby gone the primary goes on
 * alone (writes never stop for a standby's sake), and while it is alone no failover can happen.
 */
export function patroniConfig(config: StackConfig, node: PostgresNode, etcdClient: string, binDir: string): string {
  const superuser = decodeURIComponent(new URL(config.databaseUrl).username || 'postgres');
  const trusted = ['local all all trust', 'host all all 127.0.0.1/32 trust', 'local replication all trust', 'host replication all 127.0.0.1/32 trust'];
  return JSON.stringify(
    {
      scope: 'taskplatform',
      name: node.name,
      log: { level: 'INFO' },
      restapi: { listen: `127.0.0.1:${node.restPort}`, connect_address: `127.0.0.1:${node.restPort}` },
      etcd3: { hosts: [etcdClient] },
      watchdog: { mode: 'off' },
      bootstrap: {
        dcs: {
          ...patroniTimeouts,
          maximum_lag_on_failover: 1024 * 1024,
          synchronous_mode: config.postgresReplication === 'synchronous',
          synchronous_mode_strict: false,
          postgresql: {
            // pg_rewind brings a failed primary back as a standby; it needs every hint bit logged.
            use_pg_rewind: true,
            use_slots: true,
            parameters: { wal_log_hints: 'on', max_connections: 200, hot_standby: 'on' },
          },
        },
        initdb: [{ encoding: 'UTF8' }, { auth: 'trust' }, 'data-checksums'],
      },
      postgresql: {
        listen: `127.0.0.1:${node.port}`,
        connect_address: `127.0.0.1:${node.port}`,
        data_dir: node.dataDir,
        bin_dir: binDir,
        pgpass: `${node.home}/pgpass`,
        authentication: { superuser: { username: superuser }, replication: { username: 'replicator' }, rewind: { username: superuser } },
        parameters: { unix_socket_directories: node.home },
        pg_hba: trusted,
      },
    },
    null,
    2,
  );
}

/**
 * HAProxy in front of the nodes: each is checked on its Patroni REST API every second, and only the
 * one answering GET /primary with 200 takes connections. A node marked down has its sessions shut
 * at once (`on-marked-down shutdown-sessions`): no connection, and so no session-held advisory lock
 * (the outbox relays hold one), survives on a demoted node.
 */
export function proxyConfig(bind: string, nodes: Array<{ name: string; host: string; port: number; restPort: number }>): string {
  return [
    'global',
    '  maxconn 1000',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    '  timeout client 1h',
    '  timeout server 1h',
    '  timeout check 2s',
    'listen primary',
    `  bind ${bind}`,
    '  option httpchk GET /primary',
    '  http-check expect status 200',
    '  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions',
    ...nodes.map((node) => `  server ${node.name} ${node.host}:${node.port} check port ${node.restPort}`),
    '',
  ].join('\n');
}
