import { causedBy, EventOf } from '@app/events';
import type { HandlerContext } from '@app/messaging';

/**
 * An erasure: quota keeps no personal data — the ledger holds user ids, task ids, amounts and times,
 * which accounting needs and erasure keeps (docs/privacy.md) — so it answers that it erased nothing.
 */
export async function answerErasure(event: EventOf<'UserErasureRequested'>, { publish }: HandlerContext): Promise<void> {
  await publish(causedBy(event, 'UserDataErased', { service: 'quota', erased: 0 }));
}
