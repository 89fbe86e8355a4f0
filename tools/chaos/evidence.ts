import * as fs from 'node:fs';
import { readToEnd } from '@app/kafka-admin';
import * as path from 'node:path';
import type { Kafka } from 'kafkajs';
import { DomainEvent, EventType, eventTypes } from '@app/events';
import { partnerTopics } from '@app/catalogue';
import { isInfrastructureError } from '@app/failures';
import { createKnex } from '@app/database';
import { deadLetterHeaders } from '@app/dead-letters';
import { EventCodec, localRegistryCredentials } from '@app/kafka';
import { signLocalToken } from '../auth/sign-token';
import { databaseUrlFor } from '../stack/postgres';
import { registryUrl, StackConfig } from '../stack/stack.config';
import { services } from './cluster';
import type { Evidence } from './invariants';
import type { EraseOp, HistoryEntry } from './history';
import { campaignPartners } from './outside-systems';
import { promotions } from './database-faults';
import { openTaskSlots } from './slot-evidence';
import { partnerBudgets } from './budget-evidence';
import { retry } from '@app/timing';

/**
 * The event, or null when the message itself is at fault. A registry still recovering from the
 * run's faults (a 5xx while its database connections come back, no answer) is waited for: it says
 * nothing about the message.
 */
export async function decodeOrNull(codec: EventCodec, value: Buffer | null, type: EventType | undefined): Promise<DomainEvent | null> {
  return retry(() => codec.decode(value, type), { attempts: 30, delayMs: () => 1000, retryable: isInfrastructureError }).catch(() => null);
}

/**
 * Gathers what the checker needs once the run has settled: every message on every event topic with
 * its place (decoded by its topic's schema), the dead letters with their reasons, each service's
 * outbox backlog, every event a producer had acknowledged (the relays' marks, the outside
 * producer's answers) with its place, and each user's balance as the quota service reports it.
 */
export async function gatherEvidence(
  stack: StackConfig,
  kafka: Kafka,
  urls: { quota: string; tasks: string },
  history: HistoryEntry[],
  users: string[],
  granted: number,
  options: { deploying: boolean },
): Promise<Evidence> {
  const codec = new EventCodec(registryUrl(stack), '', { auth: localRegistryCredentials('auditor', stack.stackDir) });
  const evidence: Evidence = { history, events: [], undecodable: 0, deadLetters: [], outbox: [], acknowledged: [], balances: [], granted };
  // Every event topic and the partners' request topics; the partners' copies of outcomes apart, not to count an outcome twice.
  const partnerRequests = campaignPartners.flatMap((partner) => partnerTopics(partner).requests);
  const partnerOutcomes = new Set(campaignPartners.flatMap((partner) => partnerTopics(partner).outcomes));
  evidence.partnerCopies = [];
  const topics = [...eventTypes.map((type) => codec.topicFor(type)), ...partnerRequests, ...partnerOutcomes];
  await readToEnd(kafka, topics, async ({ topic, partition, message }) => {
    const event = await decodeOrNull(codec, message.value, codec.typeOfTopic(topic));
    if (!event) evidence.undecodable++;
    else (partnerOutcomes.has(topic) ? evidence.partnerCopies! : evidence.events).push({ event, topic, partition, offset: Number(message.offset) });
  });
  await readToEnd(
    kafka,
    services.map((s) => `${s}.dlq`),
    ({ topic, message }) => {
      const header = (name: string) => message.headers?.[name]?.toString() ?? '';
      evidence.deadLetters.push({
        topic,
        key: message.key?.toString() ?? '',
        errorCode: header(deadLetterHeaders.errorCode),
        errorMessage: header(deadLetterHeaders.errorMessage),
      });
    },
  );
  for (const service of services) await readOutbox(stack, service, codec, evidence);
  for (const p of history) {
    if (p.kind === 'publish' && p.acknowledged && p.eventId)
      evidence.acknowledged.push({
        by: 'outside producer',
        eventId: p.eventId,
        topic: p.topic ?? codec.topicFor('TaskRequested'),
        partition: p.partition ?? null,
        offset: p.offset ?? null,
      });
  }
  const token = await signLocalToken({ userId: 'chaos-checker', roles: ['admin'], stackDir: stack.stackDir });
  for (const user of users) {
    const response = await fetch(`${urls.quota}/quota/${user}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { balance: number };
    evidence.balances.push({ user, balance: body.balance });
  }
  evidence.erasures = await erasuresSeen(urls.tasks, token, history);
  if (stack.postgres === 'replicated') evidence.promotions = await promotions(stack);
  // A release before the namespaces' limits takes and gives back none of their slots.
  evidence.slots = await openTaskSlots(stack, !options.deploying);
  // A release before the budgets gave a namespace's new users their grant without counting it.
  if (!options.deploying) evidence.budgets = await partnerBudgets(stack);
  return evidence;
}

/** A service's outbox: its backlog, and every row its relay marked published (Kafka acknowledged each, at the place kept beside it). */
async function readOutbox(stack: StackConfig, service: string, codec: EventCodec, evidence: Evidence): Promise<void> {
  const db = createKnex(databaseUrlFor(stack, `taskplatform_${service}`), 1, { quiet: true });
  try {
    const [row] = await db('outbox')
      .whereNull('published_at')
      .select(db.raw('count(*) filter (where parked_at is null)::int as unpublished'), db.raw('count(*) filter (where parked_at is not null)::int as parked'));
    evidence.outbox.push({ service, unpublished: row.unpublished, parked: row.parked });
    // What the relay marked published: Kafka acknowledged each of these, at the place kept beside it.
    const marked = await db('outbox').whereNotNull('published_at').select('event_id', 'event_type', 'topic', 'kafka_partition', 'kafka_offset');
    for (const m of marked) {
      evidence.acknowledged.push({
        by: `${service} relay`,
        eventId: m.event_id,
        topic: m.topic ?? codec.topicFor(m.event_type),
        partition: m.kafka_partition,
        offset: m.kafka_offset === null ? null : Number(m.kafka_offset),
      });
    }
  } finally {
    await db.destroy();
  }
}

/** Each user erased with a 202: their erasure's status and their tasks' inputs, as the tasks service shows them to an admin. */
async function erasuresSeen(tasksUrl: string, token: string, history: HistoryEntry[]): Promise<NonNullable<Evidence['erasures']>> {
  const get = async <T>(path: string): Promise<T | null> => {
    const response = await fetch(`${tasksUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return response.ok ? ((await response.json()) as T) : null;
  };
  const erased = [...new Set(history.filter((h): h is EraseOp => h.kind === 'erase' && h.status === 202).map((h) => h.user))];
  return Promise.all(
    erased.map(async (user) => {
      const erasure = await get<{ status: string; requestedAt: string }>(`/users/${user}/data`);
      const list = (await get<{ items: Array<{ taskId: string }> }>(`/tasks?userId=${user}&limit=100`))?.items ?? [];
      const tasks = await Promise.all(
        list.map(async ({ taskId }) => {
          const task = await get<{ createdAt: string; input: unknown }>(`/tasks/${taskId}`);
          return { taskId, createdAt: task?.createdAt ?? '', input: task?.input ?? null };
        }),
      );
      return { user, status: erasure?.status ?? null, requestedAt: erasure?.requestedAt ?? null, tasks };
    }),
  );
}

export function saveEvidence(runDir: string, evidence: Evidence): void {
  const { history: _history, ...rest } = evidence;
  fs.writeFileSync(path.join(runDir, 'evidence.json'), JSON.stringify(rest));
}

export function loadEvidence(runDir: string, history: HistoryEntry[]): Evidence {
  return { ...(JSON.parse(fs.readFileSync(path.join(runDir, 'evidence.json'), 'utf8')) as Omit<Evidence, 'history'>), history };
}
