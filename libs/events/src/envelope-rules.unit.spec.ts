import { randomUUID } from 'node:crypto';
import { newEvent } from './new-event';
import { envelopeProblems } from './envelope-rules';

const request = (fields: Record<string, unknown> = {}) => ({
  ...newEvent(
    'TaskRequested',
    { idempotencyKey: 'k-1', reportType: 'summary', input: '{}' },
    { taskId: randomUUID(), userId: 'alice', correlationId: randomUUID(), causationId: null },
    'partner',
  ),
  ...fields,
});

describe('envelope rules', () => {
  it('finds nothing wrong with an event the platform writes', () => {
    expect(envelopeProblems(request())).toEqual([]);
  });

  it.each(['fetch failed', 'ECONNREFUSED 127.0.0.1:5432', 'Connection terminated unexpectedly', ''])(
    'refuses an eventId or taskId of %j, naming the field',
    (value) => {
      expect(envelopeProblems(request({ eventId: value }))).toEqual([`eventId must be a UUID, got ${JSON.stringify(value)}`]);
      expect(envelopeProblems(request({ taskId: value }))[0]).toMatch(/^taskId must be a UUID/);
    },
  );

  it('holds userId, reportType and idempotencyKey to the rules of HTTP', () => {
    expect(envelopeProblems(request({ userId: 'a b' }))[0]).toMatch(/^userId must match/);
    expect(envelopeProblems(request({ userId: 'u'.repeat(129) }))[0]).toMatch(/^userId must match/);
    expect(envelopeProblems(request({ reportType: 'Summary!' }))[0]).toMatch(/^reportType must match/);
    expect(envelopeProblems(request({ reportType: 'r'.repeat(65) }))[0]).toMatch(/at most 64 characters/);
    expect(envelopeProblems(request({ idempotencyKey: 'k'.repeat(256) }))[0]).toMatch(/^idempotencyKey must be null or 1–255/);
    expect(envelopeProblems(request({ idempotencyKey: 'with space' }))[0]).toMatch(/^idempotencyKey/);
    expect(envelopeProblems(request({ idempotencyKey: null }))).toEqual([]);
  });

  it('refuses a time before 2000 or more than a day ahead', () => {
    const now = Date.UTC(2026, 11, 4);
    expect(envelopeProblems(request({ occurredAt: now }), now)).toEqual([]);
    expect(envelopeProblems(request({ occurredAt: -1 }), now)[0]).toMatch(/^occurredAt/);
    expect(envelopeProblems(request({ occurredAt: now + 25 * 3600_000 }), now)[0]).toMatch(/^occurredAt/);
  });

  it('quotes a huge value only in part', () => {
    const [problem] = envelopeProblems(request({ eventId: 'x'.repeat(1_000_000) }));
    expect(problem.length).toBeLessThan(200);
    expect(problem).toContain('(1000002 characters)');
  });
});
