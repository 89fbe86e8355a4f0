import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { ServiceName, serviceNames } from '@app/config';
import { DeadLetter, PageCursor, readDeadLetter, readDeadLetterPage, RedriveLogTail, RedriveResult, requestRedrive } from '@app/dead-letters';
import { createKafka, EventCodec } from '@app/kafka';
import { CONSOLE_CONFIG, ConsoleConfig } from '../console.config';

export interface LetterGroup {
  service: ServiceName;
  errorCode: string;
  count: number;
  redriven: number;
  parked: number;
  firstSeen: number;
  lastSeen: number;
}

/** How many of a consumer's newest letters the overview groups. */
export const groupedLetters = 1000;

export type ShownLetter = DeadLetter & { redrivenBy?: { by: string; at: string } };

export interface LetterPage {
  letters: ShownLetter[];
  older?: string;
  total: number;
}

export interface RedriveRun {
  id: string;
  service: ServiceName;
  /** False until the service has taken the request (it does when it runs): the rest is unknown until then. */
  taken: boolean;
  by?: string;
  what?: string;
  startedAt?: string;
  done: number;
  total?: number;
  finished: boolean;
  skipped?: number;
  /** Letters handled again that failed again (parked now). */
  failedAgain: number;
}

export interface RedriveRequest {
  service: ServiceName;
  by: string;
  ids?: string[];
  errorCode?: string;
  rate: number;
  dryRun: boolean;
}

/**
 * The dead letters of every service's consumer, read through the dead-letter library as the
 * console's own Kafka principal, and re-driven by asking their service (the console may read dead
 * letters and re-drive logs and write re-drive requests, no event topic). The service records each
 * re-drive in its group's log: the request as it took it, then who, when, which letter, how it
 * ended. The console keeps nothing of a re-drive: it follows the logs (one consumer for its life),
 * so a restarted or a second console shows the same progress.
 */
@Injectable()
export class DeadLetterDesk implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('dead-letters');
  private readonly kafka: Kafka;
  private readonly codec: EventCodec;
  private readonly logs: RedriveLogTail;

  constructor(@Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig) {
    this.kafka = createKafka('console', config.kafkaBrokers);
    this.codec = new EventCodec(config.schemaRegistryUrl, config.topicPrefix);
    this.logs = new RedriveLogTail(
      this.kafka,
      serviceNames.map((service) => this.groupOf(service)),
      this.reader,
    );
  }

  /** Not awaited: the console starts, and shows its other pages, while the broker is away. */
  onApplicationBootstrap(): void {
    void this.logs.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.logs.stop();
  }

  private groupOf(service: ServiceName): string {
    return `${this.config.topicPrefix}${service}`;
  }

  private get reader(): string {
    return `${this.config.topicPrefix}console-`;
  }

  /** A page of one consumer's letters, newest first (values left out), with who re-drove each. */
  async letters(service: ServiceName, page: { before?: PageCursor; limit?: number } = {}): Promise<LetterPage> {
    const [letters, log] = await Promise.all([
      readDeadLetterPage(this.kafka, this.groupOf(service), { ...page, readerGroupPrefix: this.reader }),
      this.logs.view(this.groupOf(service)),
    ]);
    return { ...letters, letters: letters.letters.map((letter) => ({ ...letter, redrivenBy: log.letters.get(letter.id) })) };
  }

  /** One letter, its value included. */
  async letter(service: ServiceName, id: string): Promise<ShownLetter | undefined> {
    const [letter, log] = await Promise.all([readDeadLetter(this.kafka, this.groupOf(service), id, this.reader), this.logs.view(this.groupOf(service))]);
    return letter && { ...letter, redrivenBy: log.letters.get(letter.id) };
  }

  /**
   * Grouped by consumer and error code, with counts and first / last seen, over each consumer's
   * newest `groupedLetters` letters (a topic of any length costs the same); `read` says how many
   * letters each consumer has and how many were grouped.
   */
  async groups(): Promise<{ groups: LetterGroup[]; read: Array<{ service: ServiceName; grouped: number; total: number }> }> {
    const groups = new Map<string, LetterGroup>();
    const read = [];
    for (const service of serviceNames) {
      const page = await this.letters(service, { limit: groupedLetters });
      read.push({ service, grouped: page.letters.length, total: page.total });
      for (const letter of page.letters) {
        const key = `${service}|${letter.errorCode}`;
        const group = groups.get(key) ?? {
          service,
          errorCode: letter.errorCode,
          count: 0,
          redriven: 0,
          parked: 0,
          firstSeen: letter.failedAt,
          lastSeen: letter.failedAt,
        };
        group.count++;
        if (letter.redrivenBy) group.redriven++;
        if (letter.parked) group.parked++;
        group.firstSeen = Math.min(group.firstSeen, letter.failedAt);
        group.lastSeen = Math.max(group.lastSeen, letter.failedAt);
        groups.set(key, group);
      }
    }
    return { groups: [...groups.values()].sort((a, b) => b.lastSeen - a.lastSeen), read };
  }

  /** Every re-drive of every group, newest first. */
  async history(): Promise<Array<{ service: ServiceName; letter: string; by: string; at: string }>> {
    const entries = [];
    for (const service of serviceNames) {
      for (const [letter, { by, at }] of (await this.logs.view(this.groupOf(service))).letters) entries.push({ service, letter, by, at });
    }
    return entries.sort((a, b) => b.at.localeCompare(a.at));
  }

  /** The letter's value decoded with the registry, or why it could not be (it is often why it is here). */
  async decode(letter: DeadLetter): Promise<{ event?: Record<string, unknown>; problem?: string }> {
    try {
      return { event: (await this.codec.decode(letter.value)) as unknown as Record<string, unknown> };
    } catch (error) {
      return { problem: (error as Error).message };
    }
  }

  /** A dry run answers at once with what would be re-driven; a real one asks the service, which works through it in the background. */
  async redrive(request: RedriveRequest): Promise<RedriveResult> {
    const done = (await this.logs.view(this.groupOf(request.service))).letters;
    const options = { by: request.by, ids: request.ids, error: request.errorCode, rate: request.rate, readerGroupPrefix: this.reader, done };
    const result = await requestRedrive(this.kafka, this.groupOf(request.service), { ...options, dryRun: request.dryRun });
    if (!request.dryRun && result.requestId) {
      this.logger.log(`${request.by} asked ${request.service} to re-drive ${result.redriven.length} dead letter(s); ${result.skipped.length} skipped`);
    }
    return result;
  }

  /** A re-drive's progress, from its service's log: the request as the service took it, and each letter it logged. */
  async run(service: ServiceName, id: string): Promise<RedriveRun> {
    const request = (await this.logs.view(this.groupOf(service))).requests.get(id);
    if (!request) return { id, service, taken: false, done: 0, finished: false, failedAgain: 0 };
    const { by, what, at, total, skipped, done, failedAgain } = request;
    return { id, service, taken: true, by, what, startedAt: at, total, skipped, done, failedAgain, finished: request.finished || done >= total };
  }
}
