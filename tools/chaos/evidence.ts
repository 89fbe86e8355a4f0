import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Kafka } from 'kafkajs';
import { eventTypes } from '@app/events';
import { createKnex } from '@app/database';
import { deadLetterHeaders, EventCodec } from '@app/messaging';
import { signLocalToken } from '../auth/sign-token';
import { readToEnd } from '@app/messaging';
import { databaseUrlFor } from '../stack/postgres';
import { registryUrl, StackConfig } from '../stack/stack.config';
import { services } from './cluster';
import type { Evidence } from './invariants';
import type { HistoryEntry } from './history';

/**
 * Gathers what the checker needs once the run has settled: every message on every event topic with
 * its place (decoded by its topic's schema), the dead letters with their reasons, each service's
 * outbox backlog, and each user's balance as the quota service reports it.
 */
export async function gatherEvidence(
  stack: StackConfig,
  kafka: Kafka,
  quotaUrl: string,
  history: HistoryEntry[],
  users: string[],
  granted: number,
): Promise<Evidence> {
  const codec = new EventCodec(registryUrl(stack));
  const evidence: Evidence = { history, events: [], undecodable: 0, deadLetters: [], outbox: [], balances: [], granted };
  await readToEnd(kafka, [...eventTypes.map((type) => codec.topicFor(type))], async ({ topic, partition, message }) => {
    try {
      evidence.events.push({ event: await codec.decode(message.value, codec.typeOfTopic(topic)), topic, partition, offset: Number(message.offset) });
    } catch {
      evidence.undecodable++;
    }
  });
  await readToEnd(
    kafka,
    services.map((s) => `${s}.dlq`),
    ({ topic, message }) => {
      const header = (name: string) => message.headers?.[name]?.toString() ?? '';
      evidence.deadLetters.push({ topic, errorCode: header(deadLetterHeaders.errorCode), errorMessage: header(deadLetterHeaders.errorMessage) });
    },
  );
  for (const service of services) {
    const db = createKnex(databaseUrlFor(stack, `taskplatform_${service}`), 1, { quiet: true });
    try {
      const [row] = await db('outbox')
        .whereNull('published_at')
        .select(
          db.raw('count(*) filter (where parked_at is null)::int as unpublished'),
          db.raw('count(*) filter (where parked_at is not null)::int as parked'),
        );
      evidence.outbox.push({ service, unpublished: row.unpublished, parked: row.parked });
    } finally {
      await db.destroy();
    }
  }
  const token = await signLocalToken({ userId: 'chaos-checker', roles: ['admin'], stackDir: stack.stackDir });
  for (const user of users) {
    const response = await fetch(`${quotaUrl}/quota/${user}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { balance: number };
    evidence.balances.push({ user, balance: body.balance });
  }
  return evidence;
}

export function saveEvidence(runDir: string, evidence: Evidence): void {
  const { history: _history, ...rest } = evidence;
  fs.writeFileSync(path.join(runDir, 'evidence.json'), JSON.stringify(rest));
}

export function loadEvidence(runDir: string, history: HistoryEntry[]): Evidence {
  return { ...(JSON.parse(fs.readFileSync(path.join(runDir, 'evidence.json'), 'utf8')) as Omit<Evidence, 'history'>), history };
}
