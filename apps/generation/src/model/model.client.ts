import { Logger } from '@nestjs/common';
import type { GenerationConfig } from '../generation.config';
import { cancelledCall, classifyFailure, classifyResponse, ModelOutcome, tooLarge } from './model-outcome.rules';

export interface ModelRequest {
  taskId: string;
  attempt: number;
  reportType: string;
  input: unknown;
}

/** Where the model is and how to talk to it: any OpenAI-compatible chat-completions endpoint. */
export interface ModelEndpoint {
  /** With or without a trailing `/v1`: `https://api.example.com` and `https://api.example.com/v1` are the same. */
  baseUrl: string;
  timeoutMs: number;
  apiKey?: string;
  model: string;
  maxResponseBytes: number;
}

export function modelEndpointOf(config: GenerationConfig): ModelEndpoint {
  return {
    baseUrl: config.modelBaseUrl,
    timeoutMs: config.modelTimeoutMs,
    apiKey: config.modelApiKey,
    model: config.modelName,
    maxResponseBytes: config.modelMaxResponseBytes,
  };
}

/** `path` under the API's `/v1`, whether the base URL names it or not. */
export function apiUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1${path}`;
}

class ResponseTooLarge extends Error {}

/** The body, read to its end unless it passes `maxBytes`; a read that stalls fails with the call's own timeout. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) throw new ResponseTooLarge();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of response.body ?? []) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw new ResponseTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Calls an OpenAI-compatible chat-completions endpoint. The task id is the request's
 * Idempotency-Key (the model's side can recognise a repeat); each attempt has its own request id,
 * and an attempt that timed out is cancelled so that the model does not keep working for nobody.
 */
export class ModelClient {
  private readonly logger = new Logger('model');

  constructor(private readonly endpoint: ModelEndpoint) {}

  static requestId(request: Pick<ModelRequest, 'taskId' | 'attempt'>): string {
    return `${request.taskId}.${request.attempt}`;
  }

  private headers(): Record<string, string> {
    return this.endpoint.apiKey ? { authorization: `Bearer ${this.endpoint.apiKey}` } : {};
  }

  /** `stop` aborts the call (the connection is closed): its task was cancelled. */
  async generate(request: ModelRequest, stop?: AbortSignal): Promise<ModelOutcome> {
    let outcome: ModelOutcome;
    try {
      // One deadline for the whole call, the body's read included.
      const response = await fetch(apiUrl(this.endpoint.baseUrl, '/chat/completions'), {
        method: 'POST',
        headers: { ...this.headers(), 'content-type': 'application/json', 'idempotency-key': request.taskId, 'x-request-id': ModelClient.requestId(request) },
        body: JSON.stringify({
          model: this.endpoint.model,
          messages: [
            { role: 'system', content: 'Write the requested report in Markdown.' },
            { role: 'user', content: JSON.stringify({ reportType: request.reportType, input: request.input }) },
          ],
        }),
        signal: stop ? AbortSignal.any([stop, AbortSignal.timeout(this.endpoint.timeoutMs)]) : AbortSignal.timeout(this.endpoint.timeoutMs),
      });
      const text = await readCapped(response, this.endpoint.maxResponseBytes);
      outcome = classifyResponse(response.status, parsedOrUndefined(text));
    } catch (error) {
      if (stop?.aborted) return cancelledCall();
      outcome = error instanceof ResponseTooLarge ? tooLarge(this.endpoint.maxResponseBytes) : classifyFailure(error);
    }
    if (!outcome.ok && outcome.code === 'MODEL_TIMEOUT') await this.cancel(request);
    return outcome;
  }

  /** Best effort: a failed cancellation is logged, never thrown. */
  async cancel(request: Pick<ModelRequest, 'taskId' | 'attempt'>): Promise<void> {
    const id = encodeURIComponent(ModelClient.requestId(request));
    try {
      await fetch(apiUrl(this.endpoint.baseUrl, `/requests/${id}/cancel`), { method: 'POST', headers: this.headers(), signal: AbortSignal.timeout(5000) });
    } catch (error) {
      this.logger.warn(`could not cancel model request ${id}: ${(error as Error).message}`);
    }
  }
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
