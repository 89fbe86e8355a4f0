import type { Knex } from 'knex';
import { readConsistently } from '@app/database';
import { jsonOrErased, PersonalData } from '@app/personal-data';

export interface TimelineEntry {
  eventId: string;
  eventType: string;
  occurredAt: string;
  producer: string;
  data: Record<string, unknown>;
}

const envelopeKeys = new Set(['eventId', 'eventType', 'occurredAt', 'taskId', 'userId', 'correlationId', 'causationId', 'producer']);

export interface TaskRow {
  task_id: string;
  user_id: string;
  report_type: string;
  state: string;
  reason: string | null;
  attempts: number;
  report_ref: string | null;
  created_at: Date;
  updated_at: Date;
}

export function summary(row: TaskRow) {
  return {
    taskId: row.task_id,
    userId: row.user_id,
    reportType: row.report_type,
    state: row.state,
    reason: row.reason,
    attempts: row.attempts,
    reportRef: row.report_ref,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/**
 * The task with every event applied to it, from every service, in the order they occurred; its input
 * (and the inputs its request and acceptance carry) opened with the user's key, `[erased]` once it is gone.
 */
export async function findTask(knex: Knex, taskId: string, personal: PersonalData) {
  const read = await readConsistently(knex, async (snapshot) => {
    const row = await snapshot('tasks').where({ task_id: taskId }).first();
    const events = row
      ? await snapshot('task_timeline')
          .where({ task_id: taskId })
          .orderBy([{ column: 'occurred_at' }, { column: 'id' }])
      : [];
    return { row, events };
  });
  const { row, events } = read;
  if (!row) return undefined;
  const payloadInput = (e: { payload: Record<string, unknown> }) => (typeof e.payload.input === 'string' ? e.payload.input : undefined);
  const open = await personal.openerFor(knex, [row.input, ...events.map(payloadInput)]);
  const timeline: TimelineEntry[] = events.map((e) => ({
    eventId: e.event_id,
    eventType: e.event_type,
    occurredAt: new Date(e.occurred_at).toISOString(),
    producer: e.producer,
    data: Object.fromEntries(
      Object.entries(e.payload as Record<string, unknown>)
        .filter(([k]) => !envelopeKeys.has(k))
        .map(([k, v]) => (k === 'input' && typeof v === 'string' ? [k, open(v)] : [k, v])),
    ),
  }));
  return { ...summary(row), input: row.input === null ? null : jsonOrErased(open(row.input)), timeline };
}
