/** What the services say about one task, each from its own API. */
export interface TaskStory {
  task: {
    taskId: string;
    userId: string;
    state: string;
    createdAt: string;
    timeline: Array<{ eventId: string; eventType: string; occurredAt: string; producer: string; data: Record<string, unknown> }>;
  };
  generation?: {
    status: string;
    nextAttemptAt: string | null;
    attempts: Array<{
      attempt: number;
      startedAt: string;
      finishedAt: string | null;
      outcome: string | null;
      errorCode: string | null;
      errorMessage: string | null;
    }>;
  };
  ledger: Array<{ kind: string; amount: number; at: string; eventId: string | null }>;
  notifications: Array<{
    outcome: string;
    channel: string;
    status: string;
    deliveryAttempts: number;
    lastError: string | null;
    createdAt: string;
    deliveredAt: string | null;
    nextDeliveryAt: string | null;
  }>;
}

export interface TimelineRow {
  at: string;
  source: 'tasks' | 'quota' | 'generation' | 'notification';
  what: string;
  detail: string;
}

const sources: Array<TimelineRow['source']> = ['tasks', 'quota', 'generation', 'notification'];

const compact = (data: Record<string, unknown>) =>
  Object.entries(data)
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');

/** One timeline across the four services, in time order: events, model attempts, ledger rows, deliveries. */
export function taskTimeline(story: TaskStory): TimelineRow[] {
  // Each event under the service that produced it (the tasks service records them all).
  const sourceOf = (producer: string) => (sources.includes(producer as TimelineRow['source']) ? (producer as TimelineRow['source']) : 'tasks');
  const rows: TimelineRow[] = story.task.timeline.map((e) => ({
    at: e.occurredAt,
    source: sourceOf(e.producer),
    what: e.eventType,
    detail: `by ${e.producer} ${compact(e.data)}`,
  }));
  for (const a of story.generation?.attempts ?? []) {
    rows.push({ at: a.startedAt, source: 'generation', what: `attempt ${a.attempt} started`, detail: '' });
    if (a.finishedAt) {
      const error = a.errorCode ? `${a.errorCode}: ${a.errorMessage ?? ''}` : '';
      rows.push({ at: a.finishedAt, source: 'generation', what: `attempt ${a.attempt} ${a.outcome ?? 'ended'}`, detail: error });
    }
  }
  if (story.generation?.nextAttemptAt) rows.push({ at: story.generation.nextAttemptAt, source: 'generation', what: 'next attempt due', detail: '' });
  for (const l of story.ledger) rows.push({ at: l.at, source: 'quota', what: `ledger: ${l.kind}`, detail: l.amount ? `amount ${l.amount}` : '' });
  for (const n of story.notifications) {
    rows.push({
      at: n.createdAt,
      source: 'notification',
      what: `notification (${n.outcome}) by ${n.channel}`,
      detail: `${n.status}, ${n.deliveryAttempts} webhook attempt(s)`,
    });
    if (n.lastError) rows.push({ at: n.deliveredAt ?? n.createdAt, source: 'notification', what: 'webhook attempt failed', detail: n.lastError });
    if (n.deliveredAt && n.channel === 'webhook')
      rows.push({ at: n.deliveredAt, source: 'notification', what: 'delivered', detail: `after ${n.deliveryAttempts} attempt(s)` });
    if (n.nextDeliveryAt) rows.push({ at: n.nextDeliveryAt, source: 'notification', what: 'next webhook attempt due', detail: '' });
  }
  return rows.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}
