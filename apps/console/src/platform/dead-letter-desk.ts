import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { ServiceName, serviceNames } from '@app/config';
import { DeadLetter, PageCursor, readDeadLetter, readDeadLetterPage, readRedriveLog, redriveProgress, RedriveResult, requestRedrive } from '@app/dead-letters';
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
  by: string;
  service: ServiceName;
  what: string;
  startedAt: string;
  done: number;
  total: number;
  finished: boolean;
  skipped: number;
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
 * re-drive in its group's log: who, when, which letter, how it ended.
 */
@Injectable()
export class DeadLetterDesk {
  private readonly logger = new Logger('dead-letters');
  private readonly kafka: Kafka;
  private readonly codec: EventCodec;
  private readonly runs = new Map<string, Omit<RedriveRun, 'done' | 'finished' | 'failedAgain'>>();

  constructor(@Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig) {
    this.kafka = createKafka('console', config.kafkaBrokers);
    this.codec = new EventCodec(config.schemaRegistryUrl, config.topicPrefix);
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
      readRedriveLog(this.kafka, this.groupOf(service), this.reader),
    ]);
    return { ...letters, letters: letters.letters.map((letter) => ({ ...letter, redrivenBy: log.get(letter.id) })) };
  }

  /** One letter, its value included. */
  async letter(service: ServiceName, id: string): Promise<ShownLetter | undefined> {
    const [letter, log] = await Promise.all([
      readDeadLetter(this.kafka, this.groupOf(service), id, this.reader),
      readRedriveLog(this.kafka, this.groupOf(service), this.reader),
    ]);
    return letter && { ...letter, redrivenBy: log.get(letter.id) };
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
      for (const [letter, { by, at }] of await readRedriveLog(this.kafka, this.groupOf(service), this.reader)) entries.push({ service, letter, by, at });
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
  async redrive(request: RedriveRequest): Promise<RedriveResult | RedriveRun> {
    const options = { by: request.by, ids: request.ids, error: request.errorCode, rate: request.rate, readerGroupPrefix: this.reader };
    const result = await requestRedrive(this.kafka, this.groupOf(request.service), { ...options, dryRun: request.dryRun });
    if (request.dryRun || !result.requestId) return result;
    const run = {
      id: result.requestId,
      by: request.by,
      service: request.service,
      what: request.ids ? `letter ${request.ids.join(', ')}` : `every ${request.errorCode ?? ''} letter`,
      startedAt: new Date().toISOString(),
      total: result.redriven.length,
      skipped: result.skipped.length,
    };
    this.runs.set(run.id, run);
    this.logger.log(`${request.by} asked ${request.service} to re-drive ${run.total} dead letter(s) (${run.what}); ${run.skipped} skipped`);
    return { ...run, done: 0, finished: false, failedAgain: 0 };
  }

  /** A re-drive's progress, from its service's log. */
  async run(id: string): Promise<RedriveRun | undefined> {
    const run = this.runs.get(id);
    if (!run) return undefined;
    const entries = await redriveProgress(this.kafka, this.groupOf(run.service), id, this.reader);
    const failedAgain = entries.filter((entry) => entry.outcome === 'dead-lettered').length;
    return { ...run, done: entries.length, finished: entries.length >= run.total, failedAgain };
  }
}
