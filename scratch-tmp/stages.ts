// Scratch (not committed): where a task's time goes at a steady rate, from its timeline's stamps.
import { Logger } from '@nestjs/common';
import { createKnex } from '@app/database';
import { Platform } from '../test/support/platform';
import { tokenFor } from '../test/support/tokens';
import { benchSettings, percentile } from '../bench/bench-support';

Logger.overrideLogger(['error']);
const rate = Number(process.env.RATE ?? 17);
const users = Array.from({ length: 200 }, (_, i) => `u-${i}`);
(async () => {
  const platform = await new Platform({ ...benchSettings, DEFAULT_QUOTA: '1000000', USER_RATE_LIMIT: '1000', USER_RATE_BURST: '1000', ...(process.env.EXTRA ? JSON.parse(process.env.EXTRA) : {}) }).start();
  try {
    await Promise.all(users.map((u) => tokenFor(u)));
    const ids: string[] = [];
    const posted = new Map<string, number>();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < rate * 20; i++) {
      pending.push((async () => { const at = Date.now(); const a = await platform.submit(users[i % 200], { i }, `k-${i}`); ids.push(a.body.taskId as string); posted.set(a.body.taskId as string, at); })());
      await new Promise((r) => setTimeout(r, 1000 / rate));
    }
    await Promise.all(pending);
    await new Promise((r) => setTimeout(r, 5000));
    const db = createKnex(platform.env.databaseUrl('tasks'), 1);
    const rows = await db('task_timeline').whereIn('task_id', ids).select('task_id', 'event_type', 'occurred_at');
    await db.destroy();
    const byTask = new Map<string, Record<string, number>>();
    for (const r of rows) { const t = byTask.get(r.task_id) ?? {}; t[r.event_type] = new Date(r.occurred_at).getTime(); t['applied:' + r.event_type] = new Date(r.created_at ?? r.occurred_at).getTime(); byTask.set(r.task_id, t); }
    const stages: Array<[string, string]> = [['POST', 'TaskAccepted'], ['TaskAccepted', 'QuotaDebited'], ['QuotaDebited', 'GenerationStarted'], ['GenerationStarted', 'GenerationSucceeded'], ['GenerationSucceeded', 'TaskCompleted'], ['POST', 'TaskCompleted']];
    for (const [a, b] of stages) {
      const d = ids.map((id) => { const t = byTask.get(id) ?? {}; const from = a === 'POST' ? posted.get(id)! : t[a]; return t[b] - from; }).filter((x) => Number.isFinite(x)).sort((x, y) => x - y);
      console.log(`${a} → ${b}: p50 ${percentile(d, 50)} p90 ${percentile(d, 90)} p99 ${percentile(d, 99)} (n ${d.length})`);
    }
  } finally {
    await platform.stop();
  }
})();
