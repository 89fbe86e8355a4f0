import { consumerBatches, consumerBatchMessages, consumerLag } from '@app/metrics';
import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { EventType } from '@app/events';
import type { EventCodec } from '@app/kafka';
import { EventHandlers } from './event-handlers';
import { BatchMerger } from './batch-merger';
import { BatchControl, Delivery, MessageDelivery } from './message-delivery';
import { OffsetCommits } from './offset-commits';

/** Messages of one partition handled in one transaction at most: a bigger batch holds its rows' locks longer for little gain. */
const maxTogether = 50;

/** What handling a batch needs of its consumer runner. */
export interface BatchParts {
  handlers: EventHandlers;
  codec: EventCodec;
  merger: BatchMerger;
  delivery: MessageDelivery;
  offsets: OffsetCommits;
  /** True once the runner is stopping. */
  stopping: () => boolean;
}

/**
 * One batch kafkajs handed over: its messages together, in transactions of up to `maxTogether`, each
 * shared with the batches of other partitions that kafkajs handed over at the same moment for the
 * same reaction (see BatchMerger); when one fails, those not handled up to it one by one (retries,
 * dead letters and outages are handled there), then the rest together again. Offsets are resolved
 * as messages end, and committed by OffsetCommits.
 */
export async function handleBatch(payload: EachBatchPayload, parts: BatchParts): Promise<void> {
  const { batch, resolveOffset, isRunning, isStale } = payload;
  const { offsets, delivery } = parts;
  offsets.batchStarted(payload);
  const control: BatchControl = { heartbeat: offsets.heartbeatCommittingOnRebalance(payload.heartbeat), stillOurs: () => isRunning() && !isStale() };
  const { topic, partition } = batch;
  const done = async (message: KafkaMessage, outcome: Delivery) => {
    resolveOffset(message.offset);
    consumerLag.set({ topic, partition: String(partition) }, Math.max(0, Number(batch.highWatermark) - Number(message.offset) - 1));
    // Unlike a handled event, a dead letter has no inbox row to stop a redelivery from sending it
    // again: its offset is committed at once.
    if (outcome === 'dead-lettered') await offsets.commitNow(payload, topic, partition, message.offset);
  };
  consumerBatches.inc();
  consumerBatchMessages.inc(batch.messages.length);
  const reaction = parts.handlers[parts.codec.typeOfTopic(topic) as EventType];
  let rest = batch.messages;
  while (rest.length > 0 && control.stillOurs()) {
    const together = rest.slice(0, maxTogether);
    const { handled, failure } = await parts.merger.submit(reaction, { topic, partition, messages: together });
    for (const message of together.slice(0, handled)) await done(message, 'handled');
    if (failure) {
      for (let i = handled; i <= failure.index; i++) {
        if (!control.stillOurs()) return;
        const outcome = await delivery.deliver({ topic, partition, message: together[i] }, control, i === failure.index ? failure.error : undefined);
        if (outcome === 'given-back') return;
        await done(together[i], outcome);
      }
    }
    await control.heartbeat();
    rest = rest.slice(failure ? failure.index + 1 : handled);
  }
  // A stop waits for this batch before it leaves the group: the last chance to commit its progress.
  if (parts.stopping()) await offsets.commitResolved();
}
