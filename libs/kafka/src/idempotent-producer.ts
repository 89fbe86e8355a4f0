import { Logger } from '@nestjs/common';
import { letGo } from '@app/failures';
import { Partitioners } from 'kafkajs';
import { countRequests } from './request-count';
import type { Kafka, Message, Producer, ProducerBatch, ProducerRecord, RecordMetadata } from 'kafkajs';

const logger = new Logger('producer');

/** Where the broker appended a message it acknowledged. */
export interface Placed {
  partition: number;
  offset: string;
}

/**
 * kafkajs's idempotent producer (acks=all, one request in flight), replaced after any send that
 * failed. When a send fails kafkajs rewinds its sequence numbers, yet the broker may have appended
 * the batch and only its answer was lost (the broker died, the connection dropped, the request
 * timed out). The next batch, which differs, then starts at a sequence the broker has already
 * seen, and the broker refuses it and every later one as out of order: the producer is stuck for
 * good. A new producer gets a new producer id and starts again from zero. What was appended is
 * sent again, which is at-least-once delivery: consumers deduplicate by eventId.
 */
export class IdempotentProducer {
  private producer: Producer;
  private renewBeforeNextSend = false;
  private lastSend: Promise<unknown> = Promise.resolve();
  /** The partition kafkajs's default partitioner chose for each message object sent. */
  private readonly partitionOf = new WeakMap<Message, number>();

  constructor(private readonly kafka: Kafka) {
    this.producer = this.create();
  }

  async connect(): Promise<void> {
    await this.producer.connect();
  }

  async disconnect(): Promise<void> {
    await this.producer.disconnect();
  }

  send(record: ProducerRecord): Promise<RecordMetadata[]> {
    return this.sendBatch({
      acks: record.acks,
      timeout: record.timeout,
      compression: record.compression,
      topicMessages: [{ topic: record.topic, messages: record.messages }],
    });
  }

  sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]> {
    return this.whole(async (producer) => answeredForEveryPartition(batch, await producer.sendBatch(batch), this.partitionOf));
  }

  /**
   * Sends the batch and says where each of its messages was appended, where the broker said: a
   * partition's messages travel as one record batch, in order, from the base offset it answers.
   */
  async sendBatchPlaced(batch: ProducerBatch): Promise<Map<Message, Placed>> {
    const metadata = await this.sendBatch(batch);
    const base = new Map(metadata.map((m) => [`${m.topicName} ${m.partition}`, BigInt(m.baseOffset ?? '-1')]));
    const taken = new Map<string, bigint>();
    const places = new Map<Message, Placed>();
    for (const { topic, messages } of batch.topicMessages ?? []) {
      for (const message of messages) {
        const partition = this.partitionOf.get(message);
        const key = `${topic} ${partition}`;
        const index = taken.get(key) ?? 0n;
        taken.set(key, index + 1n);
        const first = base.get(key) ?? -1n;
        // A base offset of -1 is no place (a broker says so when it gives none): unknown, not wrong.
        if (partition !== undefined && first >= 0n) places.set(message, { partition, offset: (first + index).toString() });
      }
    }
    return places;
  }

  /**
   * One send at a time. kafkajs rewinds a failed send's sequence numbers while a send made
   * concurrently on the same producer waits for the broker: that one then takes the failed send's
   * sequence, and where the broker had appended the failed batch it takes the new one for its
   * duplicate, answers with the first one's offset and drops it. Acknowledged, never written (found
   * by the campaign on three brokers: an outside request acknowledged at an offset that held another
   * request, which had been written twice). In turn, every send starts after the last one's renewal.
   */
  private whole<T>(send: (producer: Producer) => Promise<T>): Promise<T> {
    const turn = this.lastSend.then(async () => {
      if (this.renewBeforeNextSend) await this.renew();
      try {
        return await send(this.producer);
      } catch (error) {
        this.renewBeforeNextSend = true;
        throw error;
      }
    });
    // The failure is the caller's (it has `turn`); the next send only waits for this one to end.
    this.lastSend = turn.catch(letGo('a send failed; the producer is renewed before the next', logger));
    return turn;
  }

  /** Still to renew if connecting fails: the next send tries again. */
  private async renew(): Promise<void> {
    const old = this.producer;
    this.producer = this.create();
    await old.disconnect().catch(letGo('the replaced producer is dropped whatever it answers', logger));
    await this.producer.connect();
    this.renewBeforeNextSend = false;
  }

  private create(): Producer {
    return countRequests(this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: () => this.recordingPartitioner() }));
  }

  /** kafkajs's default partitioner (Java's murmur2 of the key), noting what it chose. */
  private recordingPartitioner() {
    const choose = Partitioners.DefaultPartitioner();
    return (args: Parameters<typeof choose>[0]) => {
      const partition = choose(args);
      this.partitionOf.set(args.message, partition);
      return partition;
    };
  }
}

/**
 * kafkajs 2.2.4 can resolve a send without having sent some of it: it keeps each broker's answer
 * across its retries and, after a partition's leader moved (NOT_LEADER, a broker gone), sends only to
 * brokers that have not answered yet. A partition that moved to a broker which had already answered
 * for other partitions is then never sent, and the send resolves (found by the campaign on three
 * brokers: rows marked published that no topic held). So every partition of the batch must have its
 * answer; a send that lacks one fails, and the whole batch is sent again by a new producer (what was
 * appended is then appended twice: consumers deduplicate by eventId).
 */
function answeredForEveryPartition(batch: ProducerBatch, answers: RecordMetadata[], partitionOf: WeakMap<Message, number>): RecordMetadata[] {
  const answered = new Set(answers.map((a) => `${a.topicName} ${a.partition}`));
  const missing = new Set<string>();
  for (const { topic, messages } of batch.topicMessages ?? []) {
    for (const message of messages) {
      const key = `${topic} ${partitionOf.get(message)}`;
      if (!answered.has(key)) missing.add(key.replace(' ', '['));
    }
  }
  if (missing.size > 0) throw new UnansweredPartitions([...missing].map((m) => `${m}]`));
  return answers;
}

export class UnansweredPartitions extends Error {
  constructor(readonly partitions: string[]) {
    super(`the send resolved with no answer for ${partitions.join(', ')}: not known to be written, so sent again`);
    this.name = 'UnansweredPartitions';
  }
}
