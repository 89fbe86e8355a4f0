import type { LedgerKind } from '@app/quota-ledger';
import { createKnex } from '@app/database';
import { databaseUrlFor } from '../stack/postgres';
import type { StackConfig } from '../stack/stack.config';
import type { InvariantResult, PlacedEvent } from './checked-evidence';
import type { HistoryEntry } from './history';

/**
 * How GenerationSucceeded (which gained the optional `reportBytes` at the head) crossed the releases:
 * who wrote it — its field is null as the head reads an older writer's event — and who read it: the
 * tasks timeline keeps each event as its reader decoded it, so the field is there (maybe null) when
 * a head instance read it and absent when an instance of the release before did.
 */
export interface SchemaCrossing {
  oldToOld: number;
  oldToHead: number;
  headToOld: number;
  headToHead: number;
}

export async function schemaCrossing(stack: StackConfig, events: PlacedEvent[]): Promise<SchemaCrossing> {
  const writtenByHead = new Map<string, boolean>();
  for (const { event } of events) {
    if (event.eventType === 'GenerationSucceeded') writtenByHead.set(event.eventId, event.reportBytes !== null);
  }
  const db = createKnex(databaseUrlFor(stack, 'taskplatform_tasks'), 1, { quiet: true });
  try {
    const { rows } = await db.raw<{ rows: Array<{ event_id: string; read_by_head: boolean }> }>(
      `select event_id, (payload -> 'reportBytes') is not null as read_by_head from task_timeline where event_type = 'GenerationSucceeded'`,
    );
    const crossing: SchemaCrossing = { oldToOld: 0, oldToHead: 0, headToOld: 0, headToHead: 0 };
    for (const row of rows) {
      const byHead = writtenByHead.get(row.event_id);
      if (byHead === undefined) continue;
      crossing[`${byHead ? 'head' : 'old'}To${row.read_by_head ? 'Head' : 'Old'}`]++;
    }
    return crossing;
  } finally {
    await db.destroy();
  }
}

/** Quota's ledger while both releases ran (from the first instance stopped to the last started): grants made as late users arrived, and debits. */
export async function ledgerWhileMixed(stack: StackConfig, history: HistoryEntry[]): Promise<{ grants: number; debits: number }> {
  const steps = history.filter((h) => h.kind === 'deploy').map((h) => h.at);
  if (steps.length === 0) return { grants: 0, debits: 0 };
  const db = createKnex(databaseUrlFor(stack, 'taskplatform_quota'), 1, { quiet: true });
  try {
    const { rows } = await db.raw<{ rows: Array<{ kind: string; n: number }> }>(
      `select kind, count(*)::int as n from quota_ledger where created_at between ? and ? group by kind`,
      [new Date(Math.min(...steps)), new Date(Math.max(...steps))],
    );
    const of = (kind: LedgerKind) => rows.find((row) => row.kind === kind)?.n ?? 0;
    return { grants: of('grant'), debits: of('debit') };
  } finally {
    await db.destroy();
  }
}

/**
 * Answers a client would not ask again for: a 4xx other than 409 (busy, or already decided) and 429
 * (slow down), save the 422 of a key sent with two bodies. No answer and 5xx are asked again
 * with the same key, and count as nothing lost.
 */
export function unretryableAnswers(history: HistoryEntry[]): string[] {
  const found: string[] = [];
  // A key sent with two bodies at once: whichever claimed it first is taken, the other refused (either may be the reuse).
  const reused = new Set(history.flatMap((h) => (h.kind === 'submit' && h.repeat === 'reuse' ? [`${h.user} ${h.key}`] : [])));
  for (const entry of history) {
    if (entry.kind !== 'submit' && entry.kind !== 'cancel' && entry.kind !== 'erase') continue;
    const { status } = entry;
    if (status < 400 || status >= 500 || status === 409 || status === 429) continue;
    if (entry.kind === 'submit' && status === 422 && reused.has(`${entry.user} ${entry.key}`)) continue;
    found.push(`${entry.kind} by ${entry.user} at ${new Date(entry.at).toISOString()} answered ${status}`);
  }
  return found;
}

/** What a rolling deploy's run shows beside the invariants. */
export interface DeployReport {
  from: string;
  steps: number;
  crossing: SchemaCrossing;
  whileMixed: { grants: number; debits: number };
}

/** A rolling deploy's own checks, added to the campaign's results: the HTTP contract kept, and no request a client would give up on. */
export async function checkDeploy(
  stack: StackConfig,
  from: string,
  http: { compared: string[]; breaking: string[] },
  history: HistoryEntry[],
  events: PlacedEvent[],
  results: InvariantResult[],
): Promise<{ deploy: DeployReport; results: InvariantResult[] }> {
  const steps = history.filter((h) => h.kind === 'deploy' && h.phase === 'started').length;
  const deploy = { from, steps, crossing: await schemaCrossing(stack, events), whileMixed: await ledgerWhileMixed(stack, history) };
  const uncompared = http.compared.length < 4 ? [`compared only ${http.compared.join(', ') || 'no service'}`] : [];
  const unretryable = unretryableAnswers(history);
  return {
    deploy,
    results: [
      ...results,
      {
        invariant: 'HTTP_COMPATIBLE',
        meaning: "the head's OpenAPI documents keep every operation, status and answer field the previous release's had",
        violations: http.breaking.length + uncompared.length,
        examples: [...http.breaking, ...uncompared].slice(0, 5),
      },
      {
        invariant: 'CLIENT_REQUESTS_RETRYABLE',
        meaning: 'no request fails in a way a client would not ask again for (a deploy is invisible to clients)',
        violations: unretryable.length,
        examples: unretryable.slice(0, 5),
      },
    ],
  };
}
