import type { Kafka, Producer, ProducerBatch, ProducerRecord, RecordMetadata } from 'kafkajs';

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
    return this.whole((producer) => producer.send(record));
  }

  sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]> {
    return this.whole((producer) => producer.sendBatch(batch));
  }

  private async whole<T>(send: (producer: Producer) => Promise<T>): Promise<T> {
    if (this.renewBeforeNextSend) await this.renew();
    try {
      return await send(this.producer);
    } catch (error) {
      this.renewBeforeNextSend = true;
      throw error;
    }
  }

  /** Still to renew if connecting fails: the next send tries again. */
  private async renew(): Promise<void> {
    const old = this.producer;
    this.producer = this.create();
    await old.disconnect().catch(() => undefined);
    await this.producer.connect();
    this.renewBeforeNextSend = false;
  }

  private create(): Producer {
    return this.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  }
}
