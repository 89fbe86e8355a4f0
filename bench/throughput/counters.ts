import { serviceNames, ServiceName } from '@app/config';
import type { Platform } from '@test/platform';

const counterNames = [
  'db_statements_total',
  'consumer_batches_total',
  'consumer_batch_messages_total',
  'consumer_transactions_total',
  'consumer_transaction_messages_total',
  'relay_requests_total',
  'relay_request_messages_total',
] as const;
type Counters = Record<(typeof counterNames)[number], number> & {
  /** kafka_requests_total by API. */
  kafkaRequests: Record<string, number>;
};

/** Kafka's APIs whose requests are printed one by one; the others are summed as `other`. */
const namedApis = ['Fetch', 'Produce', 'OffsetCommit', 'Heartbeat', 'ListOffsets'];

/** Each service's round-trip counters, read from its GET /metrics. */
export async function readCounters(platform: Platform): Promise<Record<ServiceName, Counters>> {
  const entries = await Promise.all(
    serviceNames.map(async (name) => {
      const text = await (await fetch(`${platform.url(name)}/metrics`)).text();
      const value = (counter: string) => Number(new RegExp(`^${counter} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
      const kafkaRequests: Record<string, number> = {};
      for (const [, api, count] of text.matchAll(/^kafka_requests_total\{api="([^"]+)"\} (\S+)$/gm)) kafkaRequests[api] = Number(count);
      return [name, { ...Object.fromEntries(counterNames.map((counter) => [counter, value(counter)])), kafkaRequests } as Counters] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<ServiceName, Counters>;
}

const round = (n: number, places = 1) => +n.toFixed(places);

/** What the counters moved by between two readings, per task of the run and as the sizes Kafka saw. */
export function roundTrips(before: Record<ServiceName, Counters>, after: Record<ServiceName, Counters>, tasks: number) {
  const moved = (name: ServiceName, counter: (typeof counterNames)[number]) => after[name][counter] - before[name][counter];
  const total = (counter: (typeof counterNames)[number]) => serviceNames.reduce((sum, name) => sum + moved(name, counter), 0);
  return {
    statementsPerTask: {
      ...Object.fromEntries(serviceNames.map((name) => [name, round(moved(name, 'db_statements_total') / tasks)])),
      all: round(total('db_statements_total') / tasks),
    },
    messagesPerConsumerBatch: round(total('consumer_batch_messages_total') / Math.max(1, total('consumer_batches_total')), 2),
    messagesPerConsumerTransaction: round(total('consumer_transaction_messages_total') / Math.max(1, total('consumer_transactions_total')), 2),
    messagesPerRelayRequest: round(total('relay_request_messages_total') / Math.max(1, total('relay_requests_total')), 2),
    kafkaRequestsPerTask: kafkaRequestsPerTask(before, after, tasks),
  };
}

/** Requests the services sent to Kafka per task: each service's, everyone's, and everyone's by API. */
function kafkaRequestsPerTask(before: Record<ServiceName, Counters>, after: Record<ServiceName, Counters>, tasks: number) {
  const moved = (name: ServiceName, api: string) => (after[name].kafkaRequests[api] ?? 0) - (before[name].kafkaRequests[api] ?? 0);
  const apis = [...new Set(serviceNames.flatMap((name) => Object.keys(after[name].kafkaRequests)))];
  const ofService = (name: ServiceName) => apis.reduce((sum, api) => sum + moved(name, api), 0);
  const ofApi = (api: string) => serviceNames.reduce((sum, name) => sum + moved(name, api), 0);
  const byApi = Object.fromEntries(namedApis.map((api) => [api, round(ofApi(api) / tasks)]));
  const other = apis.filter((api) => !namedApis.includes(api)).reduce((sum, api) => sum + ofApi(api), 0);
  return {
    ...Object.fromEntries(serviceNames.map((name) => [name, round(ofService(name) / tasks)])),
    all: round(serviceNames.reduce((sum, name) => sum + ofService(name), 0) / tasks),
    byApi: { ...byApi, other: round(other / tasks) },
  };
}
