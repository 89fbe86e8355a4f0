/**
 * The peer of `npm run bench:throughput`: the platform's report flow written as DBOS Transact durable
 * workflow steps, the way DBOS's documentation writes them, in one Node process on the same
 * PostgreSQL server and the same model simulator.
 *
 *   POST /tasks {userId, key, input} → a workflow whose id is userId:key (a repeat is the same workflow)
 *   debit one quota (once per task, refused at zero) → call the model (transient failures retried)
 *   → store the report → a notification row; on a permanent failure: refund, notify, FAILED.
 *
 * Run by bench/throughput/peer.ts with Node's own type stripping: PEER_DATABASE_URL, PEER_PORT,
 * MODEL_BASE_URL, DEFAULT_QUOTA.
 */
import * as http from 'node:http';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';

const databaseUrl = required('PEER_DATABASE_URL');
const modelUrl = required('MODEL_BASE_URL');
const port = Number(required('PEER_PORT'));
const defaultQuota = Number(process.env.DEFAULT_QUOTA ?? 100);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}

interface TaskRequest {
  taskId: string;
  userId: string;
  input: unknown;
  submittedAt: number;
}

type ModelAnswer = { ok: true; report: string } | { ok: false; reason: string };

class TransientModelError extends Error {}

async function inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}

/** One debit per task: the debit row's key is the task; a repeat of the step finds it and debits nothing. */
async function debit(task: TaskRequest): Promise<boolean> {
  return inTransaction(async (client) => {
    const inserted = await client.query('insert into peer_debits (task_id, user_id) values ($1, $2) on conflict do nothing returning task_id', [
      task.taskId,
      task.userId,
    ]);
    if (inserted.rowCount === 0) return true;
    await client.query('insert into peer_accounts (user_id, balance) values ($1, $2) on conflict do nothing', [task.userId, defaultQuota]);
    const debited = await client.query('update peer_accounts set balance = balance - 1 where user_id = $1 and balance >= 1 returning balance', [task.userId]);
    if (debited.rowCount === 0) throw new RefusedError();
    return true;
  }).catch((error: unknown) => {
    if (error instanceof RefusedError) return false;
    throw error;
  });
}

class RefusedError extends Error {}

/** The model call: 5xx and network errors are thrown (DBOS retries the step), 4xx is a permanent answer. */
async function callModel(task: TaskRequest): Promise<ModelAnswer> {
  const response = await fetch(`${modelUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': task.taskId },
    body: JSON.stringify({ model: 'simulated', messages: [{ role: 'user', content: JSON.stringify({ reportType: 'summary', input: task.input }) }] }),
    signal: AbortSignal.timeout(5000),
  });
  if (response.status >= 500 || response.status === 429) throw new TransientModelError(`model answered ${response.status}`);
  const body = (await response.json()) as { choices?: Array<{ message?: { content?: string } }> };
  if (!response.ok) return { ok: false, reason: `model refused (${response.status})` };
  return { ok: true, report: body.choices?.[0]?.message?.content ?? '' };
}

async function storeReport(taskId: string, report: string): Promise<void> {
  await pool.query('insert into peer_reports (task_id, body) values ($1, $2) on conflict do nothing', [taskId, report]);
}

async function refund(task: TaskRequest): Promise<void> {
  await inTransaction(async (client) => {
    const refunded = await client.query('update peer_debits set refunded = true where task_id = $1 and not refunded returning task_id', [task.taskId]);
    if (refunded.rowCount) await client.query('update peer_accounts set balance = balance + 1 where user_id = $1', [task.userId]);
  });
}

async function notify(task: TaskRequest, outcome: string): Promise<void> {
  await pool.query('insert into peer_notifications (task_id, user_id, outcome) values ($1, $2, $3) on conflict do nothing', [
    task.taskId,
    task.userId,
    outcome,
  ]);
}

async function finish(task: TaskRequest, state: string, reason: string | null): Promise<void> {
  await pool.query(
    `insert into peer_tasks (task_id, user_id, state, reason, submitted_at, completed_at) values ($1, $2, $3, $4, $5, $6)
     on conflict (task_id) do update set state = excluded.state, reason = excluded.reason, completed_at = excluded.completed_at`,
    [task.taskId, task.userId, state, reason, task.submittedAt, Date.now()],
  );
}

async function reportWorkflow(task: TaskRequest): Promise<string> {
  const debited = await DBOS.runStep(() => debit(task), { name: 'debit' });
  if (!debited) {
    await DBOS.runStep(() => notify(task, 'REJECTED'), { name: 'notify' });
    await DBOS.runStep(() => finish(task, 'REJECTED', 'INSUFFICIENT_QUOTA'), { name: 'finish' });
    return 'REJECTED';
  }
  let answer: ModelAnswer;
  try {
    answer = await DBOS.runStep(() => callModel(task), { name: 'callModel', retriesAllowed: true, maxAttempts: 4, intervalSeconds: 0.05, backoffRate: 2 });
  } catch (error) {
    answer = { ok: false, reason: `retries exhausted: ${(error as Error).message}` };
  }
  if (!answer.ok) {
    await DBOS.runStep(() => refund(task), { name: 'refund' });
    await DBOS.runStep(() => notify(task, 'FAILED'), { name: 'notify' });
    await DBOS.runStep(() => finish(task, 'FAILED', answer.reason), { name: 'finish' });
    return 'FAILED';
  }
  const report = answer.report;
  await DBOS.runStep(() => storeReport(task.taskId, report), { name: 'storeReport' });
  await DBOS.runStep(() => notify(task, 'SUCCESS'), { name: 'notify' });
  await DBOS.runStep(() => finish(task, 'SUCCESS', null), { name: 'finish' });
  return 'SUCCESS';
}

const report = DBOS.registerWorkflow(reportWorkflow, { name: 'report' });

async function migrate(): Promise<void> {
  await pool.query(`
    create table if not exists peer_accounts (user_id text primary key, balance integer not null);
    create table if not exists peer_debits (task_id text primary key, user_id text not null, refunded boolean not null default false);
    create table if not exists peer_reports (task_id text primary key, body text not null);
    create table if not exists peer_notifications (task_id text primary key, user_id text not null, outcome text not null);
    create table if not exists peer_tasks (task_id text primary key, user_id text not null, state text not null, reason text,
      submitted_at bigint not null, completed_at bigint);
  `);
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

async function answer(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  if (request.method === 'GET' && request.url === '/health') return void response.writeHead(200).end('ok');
  if (request.method !== 'POST' || request.url !== '/tasks') return void response.writeHead(404).end();
  const { userId, key, input } = JSON.parse(await readBody(request)) as { userId?: string; key?: string; input?: unknown };
  if (typeof userId !== 'string' || typeof key !== 'string') return void response.writeHead(400).end('userId and key are required');
  // The workflow id is the idempotency key: DBOS runs one workflow per id, however often it is asked.
  const taskId = `${userId}:${key}`;
  await DBOS.startWorkflow(report, { workflowID: taskId })({ taskId, userId, input, submittedAt: Date.now() });
  response.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ taskId }));
}

async function main(): Promise<void> {
  await migrate();
  DBOS.setConfig({ name: 'bench-peer', systemDatabaseUrl: databaseUrl, logLevel: 'warn' });
  await DBOS.launch();
  const server = http.createServer((request, response) => {
    answer(request, response).catch((error: Error) => {
      if (!response.headersSent) response.writeHead(500).end(error.message);
    });
  });
  server.listen(port, '127.0.0.1');
  const stop = () => {
    server.close();
    void DBOS.shutdown().then(() => pool.end().then(() => process.exit(0)));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: Error) => {
  process.stderr.write(`peer failed: ${error.stack}\n`);
  process.exit(1);
});
