import { PlatformApi } from './platform-api';

/** The most tasks one bulk cancel takes (the tasks service's limit): a larger cleanup is several, each looked at first. */
export const bulkCancelLimit = 1000;

/** A bulk cancel as the tasks service keeps it (an operator run): planned, then run by whichever tasks instance holds it. */
export interface BulkCancel {
  runId: string;
  requestedBy: string;
  startedBy: string | null;
  /** The filter as the tasks service was asked it (its query string). */
  filter: string;
  items: string[];
  /** The filter matched more open tasks than bulkCancelLimit: only the newest are taken. */
  truncated: boolean;
  state: 'planned' | 'running' | 'finished';
  rate: number | null;
  startedAt: string | null;
  done: number;
  outcomes: Record<string, number>;
  failures: string[];
  audit: Array<{ at: string; what: string; by: string; line: string }>;
}

/**
 * Cancel by filter, kept and run by the tasks service (POST /operator-runs/bulk-cancels, then
 * /start): the console holds no run, so a restarted or a second console shows the same one, and a
 * run survives the tasks instance working it. Called with the operator's own token.
 */
export const bulkCancels = {
  /** The dry run: the open tasks `filter` matches, newest first, up to bulkCancelLimit; nothing is cancelled. */
  plan: (api: PlatformApi, filter: URLSearchParams) => api.post<BulkCancel>('tasks', '/operator-runs/bulk-cancels', { filter: filter.toString() }),
  /** Runs a planned cancel once (a second start of the same plan changes nothing). */
  start: (api: PlatformApi, runId: string, rate: number) => api.post<BulkCancel>('tasks', `/operator-runs/${encodeURIComponent(runId)}/start`, { rate }),
  find: (api: PlatformApi, runId: string) => api.find<BulkCancel>('tasks', `/operator-runs/${encodeURIComponent(runId)}`),
};
