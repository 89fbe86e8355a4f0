import * as fs from 'node:fs';
import { setGlobalCompatibility } from '@app/kafka-admin';
import * as path from 'node:path';
import { basicAuthorization, localRegistryCredentials } from '@app/kafka';
import { registryJar } from './artifacts';
import { databaseUrlFor } from './postgres';
import { managed, ManagedProcess, runningPid, startDetached, StackError, stopManaged, waitUntilReady } from './processes';
import { ensureRegistryPasswords, registryGateProcess, registrySocket, startGate } from './registry-gate';
import { registryUrl, StackConfig } from './stack.config';
import { findJava, requireCommand } from './toolchain';

/**
 * Apicurio Registry 3 with its SQL storage in PostgreSQL, serving the Confluent-compatible API, locked:
 * it runs in a network namespace of its own (unshare: nothing but its own loopback), so no local
 * process can reach its port. Two socket files join it to the world, each opened only by the stack's
 * user: its HTTP listener, which only the gate (registry-gate.ts) connects to, and its database, which
 * a bridge outside carries to PostgreSQL. The global compatibility rule is BACKWARD, the rule the
 * producers' schemas are written for. Every TCP leg of the bridges sets `nodelay`: without it each
 * small write the JDBC driver split a query into waited on the peer's delayed ACK, and registering
 * one schema took ~350 ms instead of ~30 ms (a test world's 20 schemas: 8 s instead of 0.9 s).
 */
export function registryProcess(config: StackConfig): ManagedProcess {
  return managed(config.runDir, config.logsDir, 'registry');
}

function databaseBridgeProcess(config: StackConfig): ManagedProcess {
  return managed(config.runDir, config.logsDir, 'registry-db-bridge');
}

const databaseSocket = (config: StackConfig) => path.join(config.runDir, 'registry-db.sock');

/** Ports inside the registry's own namespace: no other process can see them, so they never collide. */
const inside = { http: 8080, management: 9000, database: 5432 };

/** The stack's own credential for its checks: admin's, the one that may also set compatibility. */
function adminAuthorization(config: StackConfig): Record<string, string> {
  return basicAuthorization(localRegistryCredentials('admin', config.stackDir));
}

/**
 * The registry answers through its gate. Asked for its global rule, a constant-time read: the subject
 * listing grows with every test world a shared registry has kept, and once it took over the probe's
 * 2 s, a registry in good health counted as down (and a stack:up that waited on it stopped it).
 */
export async function registryAnswers(config: StackConfig): Promise<boolean> {
  try {
    const response = await fetch(`${registryUrl(config)}/config`, { headers: adminAuthorization(config), signal: AbortSignal.timeout(2000) });
    return response.ok;
  } catch {
    return false;
  }
}

export async function startRegistry(config: StackConfig): Promise<'started' | 'already up'> {
  for (const socket of [registrySocket(config), databaseSocket(config)]) {
    // The kernel takes at most 107 bytes for a socket's path: say so rather than let socat fail obscurely.
    if (Buffer.byteLength(socket) > 107)
      throw new StackError('registry', `the socket path ${socket} is longer than 107 bytes; set STACK_DIR to a shorter folder`);
  }
  ensureRegistryPasswords(config.stackDir);
  const socat = requireCommand('socat', 'socat');
  let outcome: 'started' | 'already up' = 'already up';
  if (runningPid(databaseBridgeProcess(config)) === undefined) {
    const database = new URL(databaseUrlFor(config, config.registry.database));
    startDetached(databaseBridgeProcess(config), socat, [
      `UNIX-LISTEN:${databaseSocket(config)},fork,unlink-early,mode=600`,
      `TCP:${database.hostname}:${database.port || 5432},nodelay`,
    ]);
  }
  const proc = registryProcess(config);
  let pid = runningPid(proc);
  if (pid === undefined) {
    pid = startInOwnNetwork(config, socat);
    outcome = 'started';
  }
  if (runningPid(registryGateProcess(config)) === undefined) startGate(config);
  await waitUntilReady(proc, pid, () => registryAnswers(config), 120_000);
  try {
    await setGlobalCompatibility(registryUrl(config), localRegistryCredentials('admin', config.stackDir));
  } catch (error) {
    throw new StackError('registry', (error as Error).message, proc.logFile);
  }
  return outcome;
}

/** `unshare` makes the namespace (as the stack's user: a user namespace maps it to root inside). */
function startInOwnNetwork(config: StackConfig, socat: string): number {
  const unshare = requireCommand('unshare', 'util-linux');
  const ip = requireCommand('ip', 'iproute2');
  const database = new URL(databaseUrlFor(config, config.registry.database));
  fs.rmSync(registrySocket(config), { force: true });
  const env = {
    ...process.env,
    APICURIO_STORAGE_KIND: 'sql',
    APICURIO_STORAGE_SQL_KIND: 'postgresql',
    APICURIO_DATASOURCE_URL: `jdbc:postgresql://127.0.0.1:${inside.database}${database.pathname}`,
    APICURIO_DATASOURCE_USERNAME: decodeURIComponent(database.username || 'postgres'),
    APICURIO_DATASOURCE_PASSWORD: decodeURIComponent(database.password),
    QUARKUS_HTTP_HOST: '127.0.0.1',
    QUARKUS_HTTP_PORT: String(inside.http),
    QUARKUS_MANAGEMENT_HOST: '127.0.0.1',
    QUARKUS_MANAGEMENT_PORT: String(inside.management),
  };
  const heap = config.registry.heap;
  const java = [findJava(21), `-Xms${heap}`, `-Xmx${heap}`, '-jar', registryJar(config)].map(quote).join(' ');
  // The bridges run in the registry's process group: stopping the registry stops them too.
  const script = [
    'set -e',
    `${quote(ip)} link set lo up`,
    `${quote(socat)} TCP-LISTEN:${inside.database},bind=127.0.0.1,fork,reuseaddr,nodelay UNIX-CONNECT:${quote(databaseSocket(config))} &`,
    `${quote(socat)} UNIX-LISTEN:${quote(registrySocket(config))},fork,unlink-early,mode=600 TCP:127.0.0.1:${inside.http},nodelay &`,
    `exec ${java}`,
  ].join('\n');
  try {
    return startDetached(registryProcess(config), unshare, ['--net', '--map-root-user', '--', 'sh', '-c', script], { env });
  } catch (error) {
    throw new StackError('registry', `the registry's own network namespace could not be made (unshare --net): ${(error as Error).message}`);
  }
}

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export async function stopRegistry(config: StackConfig): Promise<boolean> {
  const gate = await stopManaged(registryGateProcess(config));
  const registry = await stopManaged(registryProcess(config));
  const bridge = await stopManaged(databaseBridgeProcess(config));
  return gate || registry || bridge;
}
