import { addAllToOutbox, addToOutbox, copyOutboxEvents, outboxRowOf, outboxWriteOf, wakeRelay, wakeRelayOnCommit } from './add-to-outbox';
import { republish } from './republish';

/**
 * Publishing from outside a handler (an HTTP request, a worker, a watcher, a tool), always in the
 * caller's transaction; a handler publishes through its context instead.
 */
export const outbox = {
  /** One event, published if and only if `trx` commits. */
  add: addToOutbox,
  /** Several events with their trace contexts, by one statement. */
  addAll: addAllToOutbox,
  /** The insert `addAll` runs, not run: for a statement that writes the events with other rows (see inOneStatement). */
  writeOf: outboxWriteOf,
  /** The service's rule for copies of its events on other topics (a partner's), set once at boot. */
  copyEvents: copyOutboxEvents,
  /** An event's row, for a statement that writes it beside other rows (no copies); call `wakeRelayOnCommit` after. */
  rowOf: outboxRowOf,
  wakeRelayOnCommit,
  /** After a statement that committed on its own wrote outbox rows. */
  wakeRelay,
  /** An event again under its own eventId (consumers that had it skip it by their inbox). */
  republish,
};
