import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { answerFor, simulationOf } from './simulation';

/**
 * A local stand-in for an OpenAI-compatible model, the default MODEL_BASE_URL: deterministic
 * answers, failures on request (`input.simulate`), and a record of cancelled requests.
 */
const logger = new Logger('model-simulator');
const port = Number(process.env.MODEL_SIMULATOR_PORT || 3010);
const host = process.env.HOST || '127.0.0.1';
const callsPerKey = new Map<string, number>();
const cancellations: Array<{ requestId: string; at: string }> = [];
/** Requests told to hang, by request id: a cancellation ends them, as a real job's would end. */
const hanging = new Map<string, ServerResponse>();

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString() || '{}');
  } catch {
    return undefined;
  }
}

async function completions(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req);
  if (body === undefined) return send(res, 400, { error: { message: 'the body is not JSON', type: 'invalid_request_error' } });
  const key = String(req.headers['idempotency-key'] ?? req.headers['x-request-id'] ?? 'anonymous');
  const call = (callsPerKey.get(key) ?? 0) + 1;
  callsPerKey.set(key, call);
  const answer = answerFor(simulationOf(body), call);
  if (answer.kind === 'hang') {
    // never answers by itself: the caller's timeout, or a cancellation, ends it
    const requestId = String(req.headers['x-request-id'] ?? key);
    hanging.set(requestId, res);
    res.once('close', () => hanging.delete(requestId));
    return;
  }
  if (answer.kind === 'permanent') return send(res, 400, { error: { message: 'the model cannot produce this report', type: 'invalid_request_error' } });
  await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
  if (answer.kind === 'transient') return send(res, 503, { error: { message: 'the model is overloaded, try again', type: 'server_error' } });
  const task = String((body as { messages?: Array<{ role: string; content: string }> }).messages?.find((m) => m.role === 'user')?.content ?? '');
  send(res, 200, {
    id: `chatcmpl-${key}-${call}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'report-writer-simulator',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: `# Report\n\nGenerated for ${task}\n` } }],
    usage: { prompt_tokens: task.length, completion_tokens: 12, total_tokens: task.length + 12 },
  });
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const cancel = /^\/v1\/requests\/([^/]+)\/cancel$/.exec(url.pathname);
  if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
    completions(req, res).catch((error) => send(res, 500, { error: { message: String(error) } }));
  } else if (req.method === 'POST' && cancel) {
    const requestId = decodeURIComponent(cancel[1]);
    cancellations.push({ requestId, at: new Date().toISOString() });
    hanging.get(requestId)?.destroy();
    send(res, 200, { cancelled: requestId });
  } else if (req.method === 'GET' && url.pathname === '/v1/cancellations') {
    send(res, 200, { cancellations });
  } else if (req.method === 'GET' && url.pathname === '/health') {
    send(res, 200, { status: 'ok' });
  } else {
    send(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
  }
});

server.listen(port, host, () => logger.log(`model simulator listening on http://${host}:${port}`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
