import type { TaskStory, TimelineRow } from './task-timeline';

/** One bar of a task's waterfall: time spent working, or waiting (in the outbox and a topic, for a slot, for a retry). */
export interface Bar {
  lane: TimelineRow['source'];
  kind: 'work' | 'wait';
  label: string;
  from: number;
  to: number;
}

const firstAt = (story: TaskStory, ...types: string[]) => {
  const found = story.task.timeline.find((e) => types.includes(e.eventType));
  return found ? Date.parse(found.occurredAt) : undefined;
};

/**
 * A task's steps on one time axis, from what the services recorded: an event's time is when its
 * producer's transaction wrote it, so the time from one service's event to the next service's
 * reaction is waiting (the outbox, the topic, the consumer); a model attempt is work, and the time
 * between two attempts the retry's backoff; a refund and a notification each get their own bars.
 * A step still under way ends `now`.
 */
export function taskWaterfall(story: TaskStory, now = Date.now()): Bar[] {
  const bars: Bar[] = [];
  const add = (lane: Bar['lane'], kind: Bar['kind'], label: string, from: number | undefined, to: number | undefined) => {
    if (from !== undefined && to !== undefined && to >= from) bars.push({ lane, kind, label, from, to });
  };
  const accepted = firstAt(story, 'TaskAccepted', 'TaskRequested') ?? Date.parse(story.task.createdAt);
  const debited = firstAt(story, 'QuotaDebited');
  add('quota', 'wait', 'to quota: outbox and topic', accepted, debited ?? firstAt(story, 'QuotaRejected'));

  const attempts = [...(story.generation?.attempts ?? [])].sort((a, b) => a.attempt - b.attempt);
  const firstStart = attempts[0] ? Date.parse(attempts[0].startedAt) : undefined;
  add('generation', 'wait', 'to generation: topic and a free slot', debited, firstStart);
  attempts.forEach((a, i) => {
    const finished = a.finishedAt ? Date.parse(a.finishedAt) : now;
    add(
      'generation',
      'work',
      `attempt ${a.attempt}${a.outcome ? `: ${a.outcome}` : ''}${a.errorCode ? ` (${a.errorCode})` : ''}`,
      Date.parse(a.startedAt),
      finished,
    );
    const next = attempts[i + 1] ? Date.parse(attempts[i + 1].startedAt) : undefined;
    if (next !== undefined) add('generation', 'wait', `retry ${a.attempt}: backoff`, finished, next);
  });
  const nextDue = story.generation?.nextAttemptAt;
  const lastAttempt = attempts[attempts.length - 1];
  if (nextDue && lastAttempt?.finishedAt)
    add('generation', 'wait', `retry ${lastAttempt.attempt}: backoff`, Date.parse(lastAttempt.finishedAt), Date.parse(nextDue));

  const failedAt = firstAt(story, 'GenerationFailed', 'TaskCancelled');
  for (const refund of story.ledger.filter((l) => l.kind === 'refund')) add('quota', 'wait', 'refund: to quota', failedAt, Date.parse(refund.at));

  const outcomeAt = firstAt(story, 'TaskCompleted', 'TaskFailed');
  const lastStep = firstAt(story, 'QuotaRefunded') ?? firstAt(story, 'GenerationSucceeded') ?? failedAt ?? firstAt(story, 'QuotaRejected');
  add('tasks', 'wait', 'outcome: to tasks', lastStep, outcomeAt);

  for (const n of story.notifications) {
    add('notification', 'wait', `notification (${n.outcome}): to notification`, outcomeAt, Date.parse(n.createdAt));
    const delivered = n.deliveredAt ? Date.parse(n.deliveredAt) : n.status === 'pending' ? now : undefined;
    if (n.channel === 'webhook') add('notification', 'work', `webhook: ${n.deliveryAttempts} attempt(s)`, Date.parse(n.createdAt), delivered);
  }
  return bars.sort((a, b) => a.from - b.from || a.to - b.to);
}
