import { EventType } from '@app/events';
import { serviceEvents } from '@app/catalogue';
import { HandlersOf, setBased } from './event-handlers';

/**
 * HandlersOf is checked by the compiler (npm run typecheck compiles this file): each
 * `@ts-expect-error` below fails the build if the map it marks ever compiles.
 */
describe("a service's handler map, typed from the catalogue", () => {
  // A set-based handler of any event (a projection's) may stand for any of them.
  const handle = setBased<EventType>(async () => undefined);
  const notification: HandlersOf<'notification'> = { TaskCompleted: handle, TaskFailed: handle, UserErasureRequested: handle };

  it('names exactly the events the catalogue says the service consumes', () => {
    expect(Object.keys(notification).sort()).toEqual([...serviceEvents.notification.consumes].sort());
  });

  it('does not compile with an event the service does not consume, nor without one it does', () => {
    // @ts-expect-error notification does not consume QuotaDebited
    const extra: HandlersOf<'notification'> = { ...notification, QuotaDebited: handle };
    // @ts-expect-error notification consumes UserErasureRequested
    const missing: HandlersOf<'notification'> = { TaskCompleted: handle, TaskFailed: handle };
    expect(Object.keys(extra)).toContain('QuotaDebited');
    expect(Object.keys(missing)).not.toContain('UserErasureRequested');
  });
});
