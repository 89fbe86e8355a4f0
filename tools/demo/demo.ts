import { randomUUID } from 'node:crypto';
import { signLocalToken } from '../auth/sign-token';
import { healthStatus, RunningService } from '../run/service-process';
import { print, runPlatform } from '../run/run-platform';
import { loadStackConfig, zipkinUrl } from '../stack/stack.config';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * `npm run demo`: the platform up, then one report request down every path — success, transient
 * failures then success, retries exhausted, permanent failure, quota rejected, a double click, a
 * cancel while the model works — each
 * task's outcome and timeline printed as it settles. Every call carries a bearer token signed with
 * the stack's key (`npm run -s token`); a call without one, and one for another user's task, show
 * what the platform answers them.
 */
const demoEnv = { DEFAULT_QUOTA: '1', GENERATION_RETRY_DELAYS: '1s,2s,3s', MODEL_TIMEOUT: '2s', LOG_LEVEL: 'warn' };
const run = randomUUID().slice(0, 6);

interface Task {
  taskId: string;
  userId: string;
  state: string;
  reason: string | null;
  attempts: number;
  timeline: Array<{ eventType: string; occurredAt: string; producer: string; data: Record<string, unknown> }>;
}

async function showcase(services: RunningService[]): Promise<void> {
  const url = (name: string) => `http://127.0.0.1:${services.find((s) => s.name === name)!.port}`;
  print('\nhealth');
  for (const s of services) print(`  ${s.name.padEnd(16)} GET ${url(s.name)}/health -> ${await healthStatus(s.port)}`);

  const bearer = async (userId: string, roles: Array<'admin'> = []) => ({ authorization: `Bearer ${await signLocalToken({ userId, roles, ttl: '1h' })}` });
  const admin = await bearer('demo-operator', ['admin']);
  const submit = async (userId: string, input: Record<string, unknown>, key = randomUUID()) => {
    const response = await fetch(`${url('tasks')}/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key, ...(await bearer(userId)) },
      body: JSON.stringify({ reportType: 'summary', input }),
    });
    return { status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true', ...((await response.json()) as { taskId: string }) };
  };
  const settled = async (taskId: string): Promise<Task> => {
    for (;;) {
      const task = (await (await fetch(`${url('tasks')}/tasks/${taskId}`, { headers: admin })).json()) as Task;
      if (task.timeline.some((e) => e.eventType === 'NotificationSent')) return task;
      await sleep(200);
    }
  };

  const user = (name: string) => `${name}-${run}`;
  const paths: Array<[string, string, Record<string, unknown>]> = [
    ['success', user('ada'), { text: 'quarterly numbers' }],
    ['transient failures, then success', user('ben'), { simulate: { transientFailures: 2 } }],
    ['retries exhausted', user('cyd'), { simulate: { transientFailures: 99 } }],
    ['permanent failure', user('dee'), { simulate: { permanentFailure: true } }],
  ];
  print(`\nsubmitting (each user starts with 1 unit of quota; retries after 1s, 2s, 3s)`);
  const submitted = await Promise.all(paths.map(async ([name, userId, input]) => ({ name, userId, ...(await submit(userId, input)) })));
  const rejectedFirst = await submit(user('eve'), { text: 'first' });
  const rejected = await submit(user('eve'), { text: 'second, beyond the quota' });
  const key = randomUUID();
  const click = await submit(user('fay'), { text: 'double click' }, key);
  const again = await submit(user('fay'), { text: 'double click' }, key);
  print(`  double click: ${click.status} task ${click.taskId}; again: ${again.status} task ${again.taskId}, Idempotent-Replayed: ${again.replayed}`);
  const anonymous = await fetch(`${url('tasks')}/tasks/${click.taskId}`);
  const stranger = await fetch(`${url('tasks')}/tasks/${click.taskId}`, { headers: await bearer(user('mallory')) });
  print(`  ${user('fay')}'s task without a token: ${anonymous.status}; with another user's token: ${stranger.status}`);
  // A slow report its user stops while the model works on it: cancelled, never charged.
  const slow = await submit(user('gus'), { text: 'never mind', simulate: { latencyMs: 5000 } });
  await sleep(1500);
  const cancel = await fetch(`${url('tasks')}/tasks/${slow.taskId}/cancel`, {
    method: 'POST',
    headers: { 'idempotency-key': randomUUID(), ...(await bearer(user('gus'))) },
  });
  print(`  cancel of ${user('gus')}'s slow task: ${cancel.status} ${((await cancel.json()) as { state: string }).state}`);

  const all = [
    ...submitted,
    { name: 'spends the only unit', userId: user('eve'), ...rejectedFirst },
    { name: 'quota rejected', userId: user('eve'), ...rejected },
    { name: 'double click (one task)', userId: user('fay'), ...click },
    { name: 'cancelled while the model worked', userId: user('gus'), ...slow },
  ];
  for (const entry of all) {
    const task = await settled(entry.taskId);
    const quota = await fetch(`${url('quota')}/quota/${entry.userId}`, { headers: await bearer(entry.userId) });
    printTask(entry.name, task, ((await quota.json()) as { balance: number }).balance);
  }
  print(`\noperator console: ${url('console')}/  (sign in with the token this prints: npm run -s token -- --user ops --role admin)`);
}

/** A settled task: its outcome, the quota its user has left, its timeline and where its trace is. */
function printTask(name: string, task: Task, balance: number): void {
  print(`\n${name}: ${task.state}  attempts ${task.attempts}  quota left ${balance}${task.reason ? `\n  reason: ${task.reason}` : ''}`);
  const start = Date.parse(task.timeline[0].occurredAt);
  for (const e of task.timeline) {
    const detail = Object.entries(e.data)
      .filter(([k]) => !['input', 'idempotencyKey', 'reportType'].includes(k))
      .map(([k, v]) => `${k}=${typeof v === 'string' && v.length > 50 ? `${v.slice(0, 50)}…` : v}`)
      .join(' ');
    print(`  +${String(Date.parse(e.occurredAt) - start).padStart(5)} ms  ${e.eventType.padEnd(25)} ${e.producer.padEnd(12)} ${detail}`);
  }
  print(`  trace: ${zipkinUrl(loadStackConfig())}/zipkin/?annotationQuery=${encodeURIComponent(`taskId=${task.taskId}`)}&lookback=3600000`);
}

runPlatform(showcase, demoEnv);
