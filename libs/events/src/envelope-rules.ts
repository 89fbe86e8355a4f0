/**
 * What an event's identifying fields may hold, the same for a caller over HTTP and a producer on
 * Kafka: whatever the schema lets through (Avro does not enforce its `uuid` type), a consumer takes
 * nothing else into its inbox. An event that breaks them is the message's fault, alone.
 */
export const userIdPattern = /^[A-Za-z0-9._@:-]{1,128}$/;
export const reportTypePattern = /^[a-z][a-z0-9_-]*$/;
export const reportTypeMaxLength = 64;
/** An Idempotency-Key: 1–255 visible ASCII characters. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Correlation, causation and producer names: ids of ours or of a partner's, never free text. */
const namePattern = /^[\x21-\x7e]{1,255}$/;

/** Events older than this are not of this platform; later than a day ahead, a clock is wrong or a value forged. */
const earliestOccurredAt = Date.UTC(2000, 0, 1);
const dayMs = 24 * 60 * 60 * 1000;

type Checked = Record<string, unknown>;

/**
 * What identifies an event and its task and user, broken: an event with any of these was never
 * taken in by a consumer (it was dead-lettered), so a replay of the topics leaves it out too.
 */
export function identityProblems(event: Checked): string[] {
  const problems: string[] = [];
  check(problems, event, 'eventId', matches(event.eventId, uuidPattern), 'must be a UUID');
  check(problems, event, 'taskId', matches(event.taskId, uuidPattern), 'must be a UUID');
  check(problems, event, 'userId', matches(event.userId, userIdPattern), `must match ${userIdPattern}`);
  return problems;
}

/** Every way the event's envelope (and its key and report type, where it has them) breaks the rules; empty when none. */
export function envelopeProblems(event: Checked, now = Date.now()): string[] {
  const problems = identityProblems(event);
  const expect = (field: string, ok: boolean, rule: string) => check(problems, event, field, ok, rule);
  expect('correlationId', matches(event.correlationId, namePattern), 'must be 1–255 visible ASCII characters');
  expect('causationId', event.causationId === null || matches(event.causationId, namePattern), 'must be null or 1–255 visible ASCII characters');
  expect('producer', matches(event.producer, namePattern), 'must be 1–255 visible ASCII characters');
  const at = event.occurredAt;
  expect(
    'occurredAt',
    typeof at === 'number' && Number.isInteger(at) && at >= earliestOccurredAt && at <= now + dayMs,
    'must be a time from 2000 to a day ahead',
  );
  if ('reportType' in event) {
    const { reportType } = event;
    expect(
      'reportType',
      matches(reportType, reportTypePattern) && (reportType as string).length <= reportTypeMaxLength,
      `must match ${reportTypePattern}, at most ${reportTypeMaxLength} characters`,
    );
  }
  if ('idempotencyKey' in event) {
    expect(
      'idempotencyKey',
      event.idempotencyKey === null || matches(event.idempotencyKey, idempotencyKeyPattern),
      'must be null or 1–255 visible ASCII characters',
    );
  }
  return problems;
}

function check(problems: string[], event: Checked, field: string, ok: boolean, rule: string): void {
  if (!ok) problems.push(`${field} ${rule}, got ${shown(event[field])}`);
}

function matches(value: unknown, pattern: RegExp): boolean {
  return typeof value === 'string' && pattern.test(value);
}

/** A value as a refusal quotes it: short, so that a megabyte of it is not logged or dead-lettered twice. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}… (${text.length} characters)` : text;
}
