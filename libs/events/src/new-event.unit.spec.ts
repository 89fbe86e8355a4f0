import { causedBy, newEvent } from './new-event';

describe('building events', () => {
  const origin = { taskId: '146a8f6c-0ee1-4703-9255-b94fc6b70b1c', userId: 'u1', correlationId: 'c1', causationId: null };

  it('gives a new event a fresh id, its type, a timestamp and the producer', () => {
    const before = Date.now();
    const event = newEvent('QuotaDebited', { amount: 1, balanceAfter: 9 }, origin, 'quota');
    expect(event).toMatchObject({ ...origin, eventType: 'QuotaDebited', producer: 'quota', amount: 1, balanceAfter: 9 });
    expect(event.eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.occurredAt).toBeGreaterThanOrEqual(before);
  });

  it('links an event to its cause: same task, user and correlation, cause as causation', () => {
    const cause = newEvent('QuotaDebited', { amount: 1, balanceAfter: 9 }, origin, 'quota');
    const effect = causedBy(cause, 'GenerationStarted', { attempt: 1 }, 'generation');
    expect(effect).toMatchObject({ taskId: cause.taskId, userId: 'u1', correlationId: 'c1', causationId: cause.eventId });
    expect(effect.eventId).not.toBe(cause.eventId);
  });
});
