import { setTimeout as sleep } from 'node:timers/promises';
/**
 * Waits `ms` in slices, heartbeating between them, so that a consumer waiting out an outage or a
 * retry delay stays in its group however long the wait. Returns false as soon as the batch is no
 * longer this consumer's to process (it is stopping, or the group rebalanced): the caller must then
 * give the message back unprocessed.
 */
export async function pauseHeartbeating(ms: number, batch: { heartbeat(): Promise<void>; stillOurs(): boolean }, sliceMs = 500): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (!batch.stillOurs()) return false;
    await batch.heartbeat();
    const left = until - Date.now();
    if (left <= 0) return batch.stillOurs();
    await sleep(Math.min(left, sliceMs));
  }
}
