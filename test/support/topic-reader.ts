import type { IHeaders, Kafka } from 'kafkajs';
import { DomainEvent } from '@app/events';
import { EventCodec, fetchWaitMs } from '@app/kafka';
import { uniqueSuffix } from './unique';

export interface ReadMessage {
  partition: number;
  offset: string;
  key: string;
  value: Buffer;
  headers: IHeaders;
  event?: DomainEvent;
}

/** Reads topics from the beginning with a group of its own, collecting every message as it arrives. */
export class TopicReader {
  readonly messages: ReadMessage[] = [];
  private readonly consumer;

  constructor(
    kafka: Kafka,
    private readonly codec?: EventCodec,
    /** The consumer group's name, before a unique suffix (a principal may read only in groups of its own). */
    groupPrefix = 'reader-',
  ) {
    this.consumer = kafka.consumer({ groupId: `${groupPrefix}${uniqueSuffix()}`, maxWaitTimeInMs: fetchWaitMs });
  }

  async start(topics: string[]): Promise<this> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topics, fromBeginning: true });
    await this.consumer.run({
      eachMessage: async ({ partition, message }) => {
        const value = message.value as Buffer;
        const event = this.codec ? await this.codec.decode(value).catch(() => undefined) : undefined;
        this.messages.push({ partition, offset: message.offset, key: message.key?.toString() ?? '', value, headers: message.headers ?? {}, event });
      },
    });
    return this;
  }

  events(): DomainEvent[] {
    return this.messages.flatMap((m) => (m.event ? [m.event] : []));
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}

export function header(message: ReadMessage, name: string): string | undefined {
  return message.headers[name]?.toString();
}
