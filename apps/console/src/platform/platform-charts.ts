/** A chart of the overview: a PromQL range query (`{sel}` is this platform's label matchers) and its unit. */
export interface ChartDefinition {
  id: string;
  title: string;
  unit: string;
  /** Each series' name, from its labels. */
  legend: (labels: Record<string, string>) => string;
  query: string;
}

export const charts: ChartDefinition[] = [
  {
    id: 'outcomes',
    title: 'Tasks ended, by outcome',
    unit: 'tasks/s',
    legend: (l) => l.outcome ?? 'all',
    query: 'sum by (outcome) (rate(task_end_to_end_seconds_count{sel}[1m]))',
  },
  {
    id: 'end-to-end',
    title: 'POST → outcome, p99',
    unit: 's',
    legend: (l) => l.outcome ?? 'all',
    query: 'histogram_quantile(0.99, sum by (outcome, le) (rate(task_end_to_end_seconds_bucket{sel}[1m])))',
  },
  { id: 'retries', title: 'Retries, by kind', unit: 'retries/s', legend: (l) => l.kind ?? 'all', query: 'sum by (kind) (rate(retries_total{sel}[1m]))' },
  { id: 'refunds', title: 'Quota refunded', unit: 'units/s', legend: () => 'refunds', query: 'sum(rate(quota_refunds_total{sel}[1m]))' },
  {
    id: 'dead-letters',
    title: 'Dead letters, by consumer',
    unit: 'letters/min',
    legend: (l) => l.consumer ?? l.service ?? 'all',
    query: 'sum by (consumer) (increase(dlq_messages_total{sel}[1m]))',
  },
  { id: 'consumer-lag', title: 'Consumer lag, by service', unit: 'messages', legend: (l) => l.service ?? 'all', query: 'sum by (service) (consumer_lag{sel})' },
  {
    id: 'relay-lag',
    title: 'Oldest unpublished outbox row, by service',
    unit: 's',
    legend: (l) => l.service ?? 'all',
    query: 'max by (service) (outbox_oldest_age_seconds{sel})',
  },
];

/** The spans an operator picks from, and how many points a chart gets over any of them. */
export const chartRanges = { '15m': 900, '1h': 3600, '6h': 21_600, '24h': 86_400 } as const;
export type ChartRange = keyof typeof chartRanges;

/** The span a query asks for, or the last hour: only the spans offered (never an inherited name such as `toString`). */
export function chartRangeOf(asked: unknown): ChartRange {
  return typeof asked === 'string' && Object.hasOwn(chartRanges, asked) ? (asked as ChartRange) : '1h';
}
const pointsPerChart = 180;

/** What a chart draws: uPlot's aligned columns (seconds, then one column a series, null where a series has no point). */
export interface ChartData {
  id: string;
  title: string;
  unit: string;
  names: string[];
  columns: Array<Array<number | null>>;
  /** Why the chart is empty, when Prometheus did not answer. */
  problem?: string;
}

interface RangeAnswer {
  status: string;
  error?: string;
  data?: { result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> };
}

/** Prometheus's series of one chart as aligned columns, their times the union of every series' steps. */
export function alignSeries(result: NonNullable<RangeAnswer['data']>['result'], legend: ChartDefinition['legend']) {
  const times = [...new Set(result.flatMap((series) => series.values.map(([t]) => t)))].sort((a, b) => a - b);
  const columns = result.map((series) => {
    const byTime = new Map(series.values.map(([t, v]) => [t, Number(v)]));
    return times.map((t) => (Number.isFinite(byTime.get(t)) ? byTime.get(t)! : null));
  });
  return { names: result.map((series) => legend(series.metric)), columns: [times, ...columns] };
}

/** Every chart over the last `range`, queried server-side; a chart Prometheus cannot answer says why. */
export async function readCharts(prometheus: { url: string; selector: string }, range: ChartRange, now = Date.now() / 1000): Promise<ChartData[]> {
  const seconds = chartRanges[range];
  const step = Math.max(5, Math.round(seconds / pointsPerChart));
  return Promise.all(
    charts.map(async ({ id, title, unit, legend, query }) => {
      const params = new URLSearchParams({
        query: query.replace('{sel}', `{${prometheus.selector}}`),
        start: String(Math.floor(now - seconds)),
        end: String(Math.floor(now)),
        step: String(step),
      });
      try {
        const response = await fetch(`${prometheus.url}/api/v1/query_range?${params}`, { signal: AbortSignal.timeout(5000) });
        const answer = (await response.json()) as RangeAnswer;
        if (answer.status !== 'success' || !answer.data)
          return { id, title, unit, names: [], columns: [[]], problem: answer.error ?? `answered ${response.status}` };
        return { id, title, unit, ...alignSeries(answer.data.result, legend) };
      } catch (error) {
        return { id, title, unit, names: [], columns: [[]], problem: `Prometheus did not answer (${(error as Error).message})` };
      }
    }),
  );
}
