import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka, Producer } from 'kafkajs';
import { eventTypes, topicFor } from '@app/events';
import type { Platform } from '@test/platform';
import type { OutcomeWatcher } from './outcome-watcher';
import { saturation } from './submissions';

/**
 * A separate producer that sends one message in ten of every event topic again, byte for byte
 * (key, value, headers), as a replaying or misbehaving upstream would: the consumers' inboxes must
 * absorb them.
 */
export class Duplicator {
  republished = 0;
  private readonly consumer: Consumer;
  private readonly producer: Producer;

  constructor(
    kafka: Kafka,
    private readonly topicPrefix: string,
  ) {
    this.consumer = kafka.consumer({ groupId: `${topicPrefix}bench-duplicator-${randomUUID()}`, maxWaitTimeInMs: 50 });
    this.producer = kafka.producer();
  }

  /** From the topics' ends, once this group has its partitions. */
  async start(): Promise<this> {
    let joined!: () => void;
    const hasJoined = new Promise<void>((resolve) => (joined = resolve));
    this.consumer.on(this.consumer.events.GROUP_JOIN, () => joined());
    await this.producer.connect();
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: eventTypes.map((type) => topicFor(type, this.topicPrefix)), fromBeginning: false });
    await this.consumer.run({
      partitionsConsumedConcurrently: 4,
      eachMessage: async ({ topic, message }) => {
        if (Number(message.offset) % 10 !== 0) return;
        await this.producer.send({ topic, acks: -1, messages: [{ key: message.key, value: message.value, headers: message.headers }] });
        this.republished++;
      },
    });
    await hasJoined;
    return this;
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
    await this.producer.disconnect();
  }
}

/** Saturation while one message in ten of every topic is sent again (what redelivery costs). */
export async function saturationWithDuplicates(platform: Platform, watcher: OutcomeWatcher, tasks: number, run: string) {
  const duplicator = await new Duplicator(platform.kafka, platform.env.topicPrefix).start();
  const withDuplicates = await saturation(platform, watcher, tasks, `duplicates-${run}`);
  await duplicator.stop();
  return { withDuplicates, duplicator };
}
