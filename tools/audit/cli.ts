import { Logger } from '@nestjs/common';
import { Command } from 'commander';
import { exitCodeOf, timeArgument } from '../cli/arguments';
import { parseDuration } from '@app/timing';
import { SingleBar } from 'cli-progress';
import { loadServiceConfig } from '@app/config';
import { DomainEvent } from '@app/events';
import { createKafka, EventCodec, localKafkaEnv, localRegistryEnv } from '@app/kafka';
import { createKnex } from '@app/database';
import { defaultStuckAfterMs, timelines } from './audit-invariants';
import { compareProjection } from './rebuild';
import { forEachEvent } from './read-all-events';
import { StreamingAudit } from './streaming-audit';

/**
 * `npm run audit`: replays every event topic from the start, rebuilds each task's cross-service
 * timeline and checks the system's promises. Exit 0 when they hold, 1 when one is broken, 2 on error.
 */
Logger.overrideLogger(['error']);
// Reads as the auditor: every event topic and the registry, nothing else (the local stack's credentials unless the environment names others).
if (!process.env.KAFKA_USERNAME) Object.assign(process.env, localKafkaEnv('auditor'));
if (!process.env.SCHEMA_REGISTRY_USERNAME) Object.assign(process.env, localRegistryEnv('auditor'));

const program = new Command()
  .name('audit')
  .description('Replay the event topics and check the invariants of the task platform.')
  .option('--json', 'print a machine-readable report')
  .option('--from <time>', 'only events that occurred at or after this time', timeArgument)
  .option('--to <time>', 'only events that occurred before this time', timeArgument)
  .option('--task <taskId>', "print one task's timeline")
  .option('--rebuild', "compare a projection rebuilt from the topics with the tasks service's table")
  .option(
    '--stuck-after <duration>',
    "a task with no outcome this long after its request is stuck (default: the tasks service's deadline and grace, 20m)",
    parseDuration,
  )
  .exitOverride();

async function main(): Promise<number> {
  program.parse();
  const options = program.opts<{ json?: boolean; from?: number; to?: number; task?: string; rebuild?: boolean; stuckAfter?: number }>();
  const config = loadServiceConfig('tasks');
  const kafka = createKafka('audit', config.kafkaBrokers);
  const codec = new EventCodec(config.schemaRegistryUrl, config.topicPrefix);
  const bar = process.stderr.isTTY && !options.json ? new SingleBar({ format: 'reading events [{bar}] {value}/{total}', stream: process.stderr }) : undefined;
  bar?.start(0, 0);
  const started = Date.now();
  const inWindow = (e: DomainEvent) => (options.from === undefined || e.occurredAt >= options.from) && (options.to === undefined || e.occurredAt < options.to);
  // The audit folds each event in as it is read: a history of millions fits in a small heap. Only
  // a rebuild keeps every event, and --task those of its task.
  const streaming = new StreamingAudit();
  const kept: DomainEvent[] = [];
  let read = 0;
  const undecodable = await forEachEvent(
    kafka,
    codec,
    (event) => {
      read++;
      if (!inWindow(event)) return;
      if (options.rebuild || (options.task && event.taskId === options.task)) kept.push(event);
      else if (!options.task) streaming.add(event);
    },
    (progress, total) => {
      bar?.setTotal(total);
      bar?.update(progress);
    },
  );
  bar?.stop();
  const seconds = (Date.now() - started) / 1000;

  if (options.task) return printTask(kept, options.task, options.json);
  if (options.rebuild) return rebuild(kept, config.databaseUrl, options.json);

  const report = {
    ...streaming.report(Date.now(), options.stuckAfter ?? defaultStuckAfterMs),
    undecodable,
    readSeconds: seconds,
    eventsPerSecond: Math.round(read / Math.max(seconds, 0.001)),
  };
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(
      `${report.events} events (${report.duplicates} copies, ${report.refused} refused) of ${report.tasks} tasks read in ${seconds.toFixed(1)} s (${report.eventsPerSecond} events/s)\n`,
    );
    process.stdout.write(
      `${report.inFlight.length} task(s) in flight${report.inFlight.length ? `, the oldest for ${Math.round(Math.max(...report.inFlight.map((t) => t.ageMs ?? 0)) / 1000)} s` : ''}\n`,
    );
    if (undecodable.length) process.stdout.write(`${undecodable.length} message(s) could not be decoded\n`);
    for (const v of report.violations)
      process.stdout.write(`VIOLATION ${v.invariant} ${v.subject}: ${v.message}${v.eventIds.length ? ` (events ${v.eventIds.join(', ')})` : ''}\n`);
    process.stdout.write(report.violations.length ? `${report.violations.length} violation(s)\n` : 'all invariants hold\n');
  }
  return report.violations.length ? 1 : 0;
}

async function rebuild(events: DomainEvent[], databaseUrl: string, json?: boolean): Promise<number> {
  const db = createKnex(databaseUrl, 2);
  try {
    const differences = await compareProjection(timelines(events).tasks, db);
    if (json) process.stdout.write(`${JSON.stringify({ differences }, null, 2)}\n`);
    for (const d of json ? [] : differences) {
      const show = (side: { state: string; attempts: number } | null) => (side ? `${side.state}/${side.attempts}` : 'missing');
      process.stdout.write(`DIFFERENCE ${d.taskId}: topics ${show(d.fromTopics)}, database ${show(d.inDatabase)}\n`);
    }
    if (!json) process.stdout.write(differences.length ? `${differences.length} difference(s)\n` : 'the projection matches the topics\n');
    return differences.length ? 1 : 0;
  } finally {
    await db.destroy();
  }
}

function printTask(events: DomainEvent[], taskId: string, json?: boolean): number {
  const task = timelines(events).tasks.get(taskId);
  if (!task) {
    process.stderr.write(`no events for task ${taskId}\n`);
    return 2;
  }
  if (json) process.stdout.write(`${JSON.stringify(task, null, 2)}\n`);
  else
    for (const e of task.events)
      process.stdout.write(`${new Date(e.occurredAt).toISOString()}  ${e.eventType.padEnd(25)} ${e.producer.padEnd(12)} ${e.eventId}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (!(error as { code?: string }).code?.startsWith('commander.')) process.stderr.write(`audit failed: ${(error as Error).message}\n`);
    process.exit(exitCodeOf(error));
  },
);
