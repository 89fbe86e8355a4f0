import { execFile } from 'node:child_process';
import { readToEnd } from '@app/kafka-admin';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Kafka } from 'kafkajs';
import { serviceNames } from '@app/config';
import type { Platform } from '../support/platform';

const run = promisify(execFile);

/** One store's raw bytes, as the search reads them: a topic's records, a database dump, a file, a log, the traces. */
export interface StoreBytes {
  store: string;
  bytes: Buffer;
}

/**
 * Every store the platform keeps data in, read raw: each topic of the world (dead letters and
 * re-drive logs included) record by record — key, value and headers — a `pg_dump` of each service's
 * database, every file under the reports directory, each service's log, and every span the trace
 * store holds for the services.
 */
export async function everyStore(platform: Platform, zipkin: string, sinceMs: number): Promise<StoreBytes[]> {
  return [
    ...(await topics(platform.kafka, platform.env.topicPrefix)),
    ...(await databases(platform)),
    ...reports(platform.reportsDir),
    ...logs(platform),
    ...(await traces(zipkin, sinceMs)),
  ];
}

/** The stores whose bytes hold `needle`, by name. */
export function storesHolding(stores: StoreBytes[], needle: string): string[] {
  const wanted = Buffer.from(needle, 'utf8');
  return [...new Set(stores.filter((s) => s.bytes.includes(wanted)).map((s) => s.store))].sort();
}

async function topics(kafka: Kafka, prefix: string): Promise<StoreBytes[]> {
  const admin = kafka.admin();
  await admin.connect();
  const names = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
  await admin.disconnect();
  const records: StoreBytes[] = [];
  await readToEnd(kafka, names, ({ topic, message }) => {
    const headers = Object.entries(message.headers ?? {}).map(([name, value]) => Buffer.concat([Buffer.from(name), Buffer.from(String(value ?? ''))]));
    records.push({
      store: `topic ${topic.slice(prefix.length)}`,
      bytes: Buffer.concat([message.key ?? Buffer.alloc(0), message.value ?? Buffer.alloc(0), ...headers]),
    });
  });
  return records;
}

async function databases(platform: Platform): Promise<StoreBytes[]> {
  return Promise.all(
    serviceNames.map(async (service) => {
      const { stdout } = await run('pg_dump', ['--data-only', '--dbname', platform.env.databaseUrl(service)], {
        maxBuffer: 256 * 1024 * 1024,
        encoding: 'buffer',
      });
      return { store: `database ${service}`, bytes: stdout };
    }),
  );
}

function reports(dir: string): StoreBytes[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => ({
      store: `reports ${path.relative(dir, path.join(entry.parentPath, entry.name))}`,
      bytes: fs.readFileSync(path.join(entry.parentPath, entry.name)),
    }));
}

function logs(platform: Platform): StoreBytes[] {
  return serviceNames.map((service) => ({ store: `log ${service}`, bytes: Buffer.from(platform.service(service).output(), 'utf8') }));
}

async function traces(zipkin: string, sinceMs: number): Promise<StoreBytes[]> {
  const lookback = Date.now() - sinceMs + 60_000;
  return Promise.all(
    serviceNames.map(async (service) => {
      const response = await fetch(`${zipkin}/api/v2/traces?serviceName=${service}&lookback=${lookback}&limit=100000`);
      return { store: `traces ${service}`, bytes: Buffer.from(await response.arrayBuffer()) };
    }),
  );
}
