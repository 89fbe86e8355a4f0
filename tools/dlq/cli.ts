import { Logger } from '@nestjs/common';
import { Command, InvalidArgumentError } from 'commander';
import { exitCodeOf, timeArgument } from '../cli/arguments';
import * as os from 'node:os';
import { loadServiceConfig, serviceNames } from '@app/config';
import { createKnex } from '@app/database';
import { createKafka, localKafkaEnv, localRegistryEnv } from '@app/kafka';
import {
  DeadLetter,
  DeadLetterFilter,
  forEachDeadLetter,
  listParkedRows,
  matches,
  readDeadLetter,
  redriveProgress,
  releaseParkedRows,
  requestRedrive,
} from '@app/dead-letters';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * `npm run dlq -- list | show <id> | redrive`: the dead letters of the services' consumers;
 * `parked | release-parked`: the outbox rows a relay parked because the broker refused their size.
 */
Logger.overrideLogger(['error']);
// Reads every dead letter and asks for re-drives: the admin's work (or the console's, named in the environment).
if (!process.env.KAFKA_USERNAME) Object.assign(process.env, localKafkaEnv('admin'));
if (!process.env.SCHEMA_REGISTRY_USERNAME) Object.assign(process.env, localRegistryEnv('admin'));
const config = loadServiceConfig('tasks');
const kafka = createKafka('dlq', config.kafkaBrokers);

const positive = (value: string) => {
  const n = Number(value);
  if (!(n > 0)) throw new InvalidArgumentError(`"${value}" is not a positive number`);
  return n;
};
const service = (value: string) => {
  if (!(serviceNames as readonly string[]).includes(value)) throw new InvalidArgumentError(`"${value}" is not one of ${serviceNames.join(', ')}`);
  return value;
};

interface Filters extends DeadLetterFilter {
  group?: string;
  json?: boolean;
}

const withFilters = (command: Command) =>
  command
    .option('--group <service>', 'only this service’s consumer', service)
    .option('--topic <topic>', 'only dead letters from this topic')
    .option('--error <codeOrClass>', 'only this error code (HANDLER_FAILED) or error class (PlatformError)')
    .option('--since <time>', 'failed at or after', timeArgument)
    .option('--until <time>', 'failed before', timeArgument)
    .option('--json', 'machine-readable output');

const groups = (filters: Filters) => (filters.group ? [filters.group] : [...serviceNames]).map((s) => `${config.topicPrefix}${s}`);
const filterOf = (f: Filters): DeadLetterFilter => ({ topic: f.topic, error: f.error, since: f.since, until: f.until });

function line(group: string, l: DeadLetter): string {
  return `${group} ${l.id}  ${new Date(l.failedAt).toISOString()}  ${l.errorCode.padEnd(18)} ${l.originalTopic}  ${l.eventId ?? '-'}${l.parked ? '  PARKED' : ''}  ${l.errorMessage}`;
}

const program = new Command().name('dlq').description('List, show and re-drive dead letters.').exitOverride();

withFilters(program.command('list')).action(async (filters: Filters) => {
  for (const group of groups(filters)) {
    // Printed as read, none kept: a dead-letter topic of any length lists in constant memory.
    await forEachDeadLetter(kafka, group, (l) => {
      if (!matches(l, filterOf(filters))) return;
      process.stdout.write(`${filters.json ? JSON.stringify({ group, ...l, key: l.key?.toString(), value: l.value?.toString('base64') }) : line(group, l)}\n`);
    });
  }
});

program
  .command('show <id>')
  .description('one dead letter: id is <partition>:<offset> in its dead-letter topic')
  .requiredOption('--group <service>', 'the service whose consumer dead-lettered it', service)
  .action(async (id: string, options: { group: string }) => {
    const group = `${config.topicPrefix}${options.group}`;
    const letter = await readDeadLetter(kafka, group, id);
    if (!letter) throw new Error(`no dead letter ${id} for ${options.group}`);
    process.stdout.write(`${JSON.stringify({ ...letter, key: letter.key?.toString(), value: letter.value?.toString('base64') }, null, 2)}\n`);
  });

withFilters(program.command('redrive'))
  .description('ask each service to handle its matching dead letters again (it reads them from its own dead-letter topic), and wait for its log')
  .option('--dry-run', 'say what would be re-driven, re-drive nothing')
  .option('--rate <perSecond>', 'at most this many messages a second', positive)
  .option('--by <name>', 'who re-drives (recorded)', os.userInfo().username)
  .option('--include-parked', 'also re-drive what failed again after a re-drive')
  .option('--wait <seconds>', 'how long to wait for the services to log each letter (0: do not wait)', (v) => Number(v), 120)
  .action(async (options: Filters & { dryRun?: boolean; rate?: number; by: string; includeParked?: boolean; wait: number }) => {
    for (const group of groups(options)) {
      const result = await requestRedrive(kafka, group, {
        ...filterOf(options),
        dryRun: options.dryRun,
        rate: options.rate,
        by: options.by,
        includeParked: options.includeParked,
      });
      for (const l of result.redriven) process.stdout.write(`${options.dryRun ? 'would re-drive' : 'asked to re-drive'} ${line(group, l)}\n`);
      for (const s of result.skipped) process.stdout.write(`skipped ${group} ${s.letter.id}: ${s.why}\n`);
      if (result.requestId && options.wait > 0) await awaitLog(group, result.requestId, result.redriven.length, options.wait * 1000);
    }
  });

/** Prints how each letter of a request ended, as the service logs it; says so when it does not within the time given. */
async function awaitLog(group: string, requestId: string, total: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const entries = await redriveProgress(kafka, group, requestId);
    if (entries.length >= total || Date.now() > deadline) {
      for (const e of entries) process.stdout.write(`${group} ${e.deadLetter}: ${e.outcome}\n`);
      if (entries.length < total)
        throw new Error(
          `${group} logged ${entries.length} of ${total} letter(s) in ${timeoutMs / 1000} s; is the service running? (the request stays: it works through it when it runs)`,
        );
      return;
    }
    await sleep(1000);
  }
}

/** The outbox rows a service's relay parked for their size, and how many rows of their key wait behind them. */
program
  .command('parked')
  .description('outbox rows the broker refused for their size, per service, with the rows of their key they hold back')
  .option('--service <service>', 'only this service', service)
  .option('--json', 'machine-readable output')
  .action(async (options: { service?: string; json?: boolean }) => {
    for (const name of options.service ? [options.service] : [...serviceNames]) {
      await withServiceDatabase(name, async (db) => {
        for (const row of await listParkedRows(db)) {
          const text = `${name} outbox#${row.id}  ${row.parkedAt.toISOString()}  ${row.eventType}  key ${row.key}  holds back ${row.heldBack}  ${row.reason}`;
          process.stdout.write(`${options.json ? JSON.stringify({ service: name, ...row }) : text}\n`);
        }
      });
    }
  });

program
  .command('release-parked')
  .description('give parked outbox rows back to the relay, once the broker takes them (its message.max.bytes raised)')
  .requiredOption('--service <service>', 'the service whose outbox holds them', service)
  .option('--id <id...>', 'only these rows (outbox ids, as `parked` lists them)')
  .option('--all', 'every parked row of the service')
  .action(async (options: { service: string; id?: string[]; all?: boolean }) => {
    if (!options.all && !options.id) throw new InvalidArgumentError('name the rows with --id, or release them all with --all');
    await withServiceDatabase(options.service, async (db) => {
      const released = await releaseParkedRows(db, options.all ? undefined : options.id);
      process.stdout.write(`released ${released} parked row(s) of ${options.service}; its relay publishes them on its next round\n`);
    });
  });

async function withServiceDatabase(name: string, work: (db: ReturnType<typeof createKnex>) => Promise<void>): Promise<void> {
  const db = createKnex(loadServiceConfig(name as (typeof serviceNames)[number]).databaseUrl, 1);
  try {
    await work(db);
  } finally {
    await db.destroy();
  }
}

program.parseAsync().then(
  () => process.exit(0),
  (error: unknown) => {
    if (!(error as { code?: string }).code?.startsWith('commander.')) process.stderr.write(`dlq failed: ${(error as Error).message}\n`);
    process.exit(exitCodeOf(error));
  },
);
