import type { Admin } from 'kafkajs';
import { createKnex } from '@app/database';
import { topicFor } from '@app/events';
import { consumerGroupsOf } from '@app/catalogue';
import { terminalStates } from '@app/task-state';
import { databaseUrlFor } from '../stack/postgres';
import type { StackConfig } from '../stack/stack.config';
import { services } from './cluster';

/** What still keeps the platform from having converged; empty when it has. */
export async function pendingWork(stack: StackConfig, admin: Admin): Promise<string[]> {
  const pending: string[] = [];
  const query = async (service: string, sql: string, bindings: string[] = []) => {
    const db = createKnex(databaseUrlFor(stack, `taskplatform_${service}`), 1, { quiet: true, acquireTimeoutMs: 3000 });
    try {
      const { rows } = await db.raw<{ rows: Array<{ n: number }> }>(sql, bindings);
      return rows[0].n;
    } finally {
      await db.destroy();
    }
  };
  const count = async (what: string, service: string, sql: string, bindings: string[] = []) => {
    const n = await query(service, sql, bindings);
    if (n > 0) pending.push(`${n} ${what}`);
  };
  const states = [...terminalStates];
  await count('unfinished tasks', 'tasks', `select count(*)::int as n from tasks where state not in (${states.map(() => '?').join(',')})`, states);
  await count('pending notifications', 'notification', `select count(*)::int as n from notifications where status = 'pending'`);
  for (const service of services)
    await count(`${service} outbox rows`, service, 'select count(*)::int as n from outbox where published_at is null and parked_at is null');
  for (const { group, reads } of services.flatMap((service) => consumerGroupsOf(service))) {
    for (const type of reads) {
      const topic = topicFor(type);
      const ends = await admin.fetchTopicOffsets(topic);
      const [committed] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      const lag = ends.reduce((sum, end) => {
        const at = Number(committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? -1);
        return sum + Math.max(0, Number(end.high) - Math.max(at, Number(end.low)));
      }, 0);
      if (lag > 0) pending.push(`${group} lags ${lag} on ${topic}`);
    }
  }
  return pending;
}
