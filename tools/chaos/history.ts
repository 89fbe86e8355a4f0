import type { Hostility } from './hostile-requests';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** How a task was asked for, and which model behaviour its input asks the simulator for. */
export type Behaviour = 'success' | 'transient' | 'permanent' | 'exhausted' | 'slow' | 'hang';

/** A POST /tasks and its answer. */
export interface SubmitOp {
  kind: 'submit';
  at: number;
  user: string;
  key: string;
  /** Same key and body as an earlier submit (a re-send), or the same key with another body (a reuse). */
  repeat?: 'resend' | 'reuse';
  bodyHash: string;
  behaviour: Behaviour;
  status: number;
  taskId?: string;
  /** The error when no answer came (connection refused, timeout). */
  error?: string;
}

/** A TaskRequested an outside producer wrote on Kafka, and whether the broker took it. */
export interface PublishOp {
  kind: 'publish';
  at: number;
  user: string;
  key: string;
  taskId: string;
  behaviour: Behaviour;
  acknowledged: boolean;
  /** A request written to be refused (see hostile-requests): `taskId` is then its message key. */
  hostile?: Hostility;
  /** A sender's request for a user outside its namespace (`user`: another partner's, an HTTP user), to be refused as NOT_YOUR_USER. */
  forged?: boolean;
  /** Where it was written: its outside system's request topic. */
  topic?: string;
  eventId?: string;
  /** Where the broker appended it, as its acknowledgement said. */
  partition?: number;
  offset?: number;
  error?: string;
}

/** A POST /tasks/{taskId}/cancel and its answer: 202 cancelled, 409 with the state the task had ended in. */
export interface CancelOp {
  kind: 'cancel';
  at: number;
  user: string;
  taskId: string;
  status: number;
  /** The task's state in the answer. */
  state?: string;
  error?: string;
}

/** A DELETE /users/{userId}/data of an idle user, by an admin, and its answer (202: erasing). */
export interface EraseOp {
  kind: 'erase';
  at: number;
  user: string;
  status: number;
  erasureId?: string;
  error?: string;
}

/** A webhook registered for a user. */
export interface WebhookOp {
  kind: 'webhook';
  at: number;
  user: string;
  status: number;
}

/** A fault the nemesis applied (`start`) or healed (`end`). */
export interface FaultEntry {
  kind: 'fault';
  at: number;
  phase: 'start' | 'end';
  id: number;
  fault: string;
  target: string;
}

/**
 * What a node's Admin API showed of a cluster fault while it lasted (`seen`), or that it was never
 * seen (`seen: null`), either because the run ended first (`cutShort`) or because it did not show.
 */
export interface EffectEntry {
  kind: 'effect';
  at: number;
  id: number;
  fault: string;
  seen: string | null;
  afterMs?: number;
  cutShort?: boolean;
  lastError?: string;
}

/** A webhook delivery the receiver got: its id, whether its signature held, and what it answered. */
export interface DeliveryEntry {
  kind: 'delivery';
  at: number;
  user: string;
  webhookId: string;
  taskId?: string;
  outcome?: string;
  verified: boolean;
  answered: number;
}

/** A rolling deploy's step (tools/chaos/deployer.ts): an instance stopped, or started at another release. */
export interface DeployEntry {
  kind: 'deploy';
  at: number;
  instance: string;
  phase: 'stopped' | 'started';
  /** The release it runs once started. */
  commit: string;
}

/** Milestones: the run's settings, when faults were healed, when the run settled or gave up. */
export interface PhaseEntry {
  kind: 'phase';
  at: number;
  phase: 'started' | 'healed' | 'settled' | 'settle-timeout';
  detail?: Record<string, unknown>;
}

export type HistoryEntry = SubmitOp | PublishOp | CancelOp | EraseOp | WebhookOp | FaultEntry | EffectEntry | DeliveryEntry | DeployEntry | PhaseEntry;

/** Appends entries to `history.jsonl`, one JSON object per line, as they happen. */
export class History {
  readonly file: string;
  private readonly fd: number;

  constructor(runDir: string) {
    fs.mkdirSync(runDir, { recursive: true });
    this.file = path.join(runDir, 'history.jsonl');
    this.fd = fs.openSync(this.file, 'w');
  }

  record(entry: HistoryEntry): void {
    fs.writeSync(this.fd, `${JSON.stringify(entry)}\n`);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

export function readHistory(runDir: string): HistoryEntry[] {
  return fs
    .readFileSync(path.join(runDir, 'history.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as HistoryEntry);
}
