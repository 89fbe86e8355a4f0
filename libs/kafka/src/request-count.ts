import type { Admin, Consumer, Producer } from 'kafkajs';
import { kafkaRequests } from '@app/metrics';

/** Counts the client's requests to the brokers by API in kafka_requests_total: what a task costs Kafka is in requests. */
export function countRequests<C extends Consumer | Producer | Admin>(client: C): C {
  (client as Consumer).on((client as Consumer).events.REQUEST, ({ payload }) => kafkaRequests.inc({ api: payload.apiName }));
  return client;
}
