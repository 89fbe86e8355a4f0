import { randomUUID } from 'node:crypto';
import { HttpStatus, Injectable, Logger } from '@nestjs/common';
import { terminalStates, TaskState } from '@app/task-state';
import { PlatformApi, ServiceAnswer } from './platform-api';
import { setTimeout as sleep } from 'node:timers/promises';

/** The most tasks one bulk cancel takes: a larger cleanup is several, each looked at first. */
export const bulkCancelLimit = 1000;
/** Pages of 100 a dry run reads at most, whatever they hold: a filter matching 100 000 ended tasks is not read to its end. */
const pagesScanned = 100;
/** How often a cancel the tasks service answers busy is asked: a row locked for that long is a failure to report, not an end. */
const busyRetries = 5;

/** A bulk cancel: planned (the dry run: which tasks), then run at most `rate` cancels a second. */
export interface BulkCancel {
  id: string;
  by: string;
  /** The filter as the tasks service was asked it (its query string). */
  filter: string;
  taskIds: string[];
  /** The filter matched more open tasks than bulkCancelLimit, or more tasks than a dry run reads: only the newest are taken. */
  truncated: boolean;
  rate?: number;
  startedAt?: string;
  done: number;
  cancelled: number;
  /** Tasks that had ended by the time their cancel came (their outcome stands). */
  alreadyEnded: number;
  failed: string[];
  finished: boolean;
}

/**
 * Cancels many tasks by filter, through the tasks service's own cancel (one idempotent request a
 * task, with the operator's token): a dry run finds the open tasks the filter matches, and the run
 * cancels those and no others, throttled. Each run is written to the log as an audit record when it
 * starts and when it ends (who, the filter, how many, the outcome). Kept in this process only.
 */
@Injectable()
export class BulkCancels {
  private readonly logger = new Logger('bulk-cancel');
  private readonly runs = new Map<string, BulkCancel>();

  /** The dry run: the open tasks `filter` matches, newest first, up to bulkCancelLimit. */
  async plan(api: PlatformApi, filter: URLSearchParams, by: string): Promise<BulkCancel> {
    const taskIds: string[] = [];
    let truncated = false;
    // Open tasks among many ended ones: at most pagesScanned pages are read (the newest first).
    let offset: number | null = 0;
    for (let pages = 0; offset !== null && pages < pagesScanned; pages++) {
      const page: { items: Array<{ taskId: string; state: string }>; nextOffset: number | null } = await api.get(
        'tasks',
        `/tasks?${new URLSearchParams([...filter, ['limit', '100'], ['offset', String(offset)]])}`,
      );
      taskIds.push(...page.items.filter((t) => !terminalStates.has(t.state as TaskState)).map((t) => t.taskId));
      truncated = taskIds.length > bulkCancelLimit;
      offset = truncated ? null : page.nextOffset;
    }
    truncated ||= offset !== null;
    const plan: BulkCancel = {
      id: randomUUID(),
      by,
      filter: filter.toString(),
      taskIds: taskIds.slice(0, bulkCancelLimit),
      truncated,
      done: 0,
      cancelled: 0,
      alreadyEnded: 0,
      failed: [],
      finished: false,
    };
    this.runs.set(plan.id, plan);
    return plan;
  }

  find(id: string): BulkCancel | undefined {
    return this.runs.get(id);
  }

  /** Runs a planned cancel once (a second start of the same plan changes nothing). */
  start(id: string, api: PlatformApi, by: string, rate: number): BulkCancel | undefined {
    const run = this.runs.get(id);
    if (!run || run.startedAt) return run;
    Object.assign(run, { rate, startedAt: new Date().toISOString() });
    this.audit('started', run, by);
    void this.cancelEach(run, api).finally(() => {
      run.finished = true;
      this.audit('finished', run, by);
    });
    return run;
  }

  private async cancelEach(run: BulkCancel, api: PlatformApi): Promise<void> {
    const began = Date.now();
    for (const [i, taskId] of run.taskIds.entries()) {
      await sleep(Math.max(0, began + (i * 1000) / run.rate! - Date.now()));
      const outcome = await this.cancelOne(run, api, taskId);
      if (outcome === 'cancelled') run.cancelled++;
      else if (outcome === 'had ended') run.alreadyEnded++;
      else run.failed.push(`${taskId}: ${outcome.failed}`);
      run.done++;
    }
  }

  /**
   * One task's cancel, under one Idempotency-Key however often it is asked. A 409 that says when to
   * ask again is the task's row busy (tasks' lock timeout), not an outcome: asked again, a few times.
   */
  private async cancelOne(run: BulkCancel, api: PlatformApi, taskId: string): Promise<'cancelled' | 'had ended' | { failed: string }> {
    for (let attempt = 1; ; attempt++) {
      try {
        await api.post('tasks', `/tasks/${taskId}/cancel`, undefined, { 'idempotency-key': `bulk-${run.id}-${taskId}` });
        return 'cancelled';
      } catch (error) {
        const busy = error instanceof ServiceAnswer && error.getStatus() === HttpStatus.CONFLICT && error.retryAfter !== undefined;
        if (busy && attempt < busyRetries) await sleep(error.retryAfter! * 1000);
        else if (busy) return { failed: `still busy after ${busyRetries} tries: ${(error as Error).message}` };
        else if (error instanceof ServiceAnswer && error.getStatus() === HttpStatus.CONFLICT) return 'had ended';
        else return { failed: (error as Error).message };
      }
    }
  }

  private audit(what: 'started' | 'finished', run: BulkCancel, by: string): void {
    const { id, filter, taskIds, cancelled, alreadyEnded, failed } = run;
    const outcome = what === 'finished' ? `: ${cancelled} cancelled, ${alreadyEnded} had ended, ${failed.length} failed` : '';
    this.logger.log(`audit: ${by} ${what} bulk cancel ${id} of ${taskIds.length} task(s) matching "${filter}"${outcome}`);
  }
}
