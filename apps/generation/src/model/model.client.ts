import { Logger } from '@nestjs/common';
import { classifyFailure, classifyResponse, ModelOutcome } from './model-outcome.rules';

export interface ModelRequest {
  taskId: string;
  attempt: number;
  reportType: string;
  input: unknown;
}

/**
 * Calls an OpenAI-compatible chat-completions endpoint. The task id is the request's
 * Idempotency-Key (the model's side can recognise a repeat); each attempt has its own request id,
 * and an attempt that timed out is cancelled so that the model does not keep working for nobody.
 */
export class ModelClient {
  private readonly logger = new Logger('model');

  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  static requestId(request: Pick<ModelRequest, 'taskId' | 'attempt'>): string {
    return `${request.taskId}.${request.attempt}`;
  }

  async generate(request: ModelRequest): Promise<ModelOutcome> {
    let outcome: ModelOutcome;
    try {
      const response = await fetch(`${this.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': request.taskId, 'x-request-id': ModelClient.requestId(request) },
        body: JSON.stringify({
          model: 'report-writer',
          messages: [
            { role: 'system', content: 'Write the requested report in Markdown.' },
            { role: 'user', content: JSON.stringify({ reportType: request.reportType, input: request.input }) },
          ],
        }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      outcome = classifyResponse(response.status, await response.json().catch(() => undefined));
    } catch (error) {
      outcome = classifyFailure(error);
    }
    if (!outcome.ok && outcome.code === 'MODEL_TIMEOUT') await this.cancel(request);
    return outcome;
  }

  /** Best effort: a failed cancellation is logged, never thrown. */
  async cancel(request: Pick<ModelRequest, 'taskId' | 'attempt'>): Promise<void> {
    const id = encodeURIComponent(ModelClient.requestId(request));
    try {
      await fetch(`${this.baseUrl}/v1/requests/${id}/cancel`, { method: 'POST', signal: AbortSignal.timeout(5000) });
    } catch (error) {
      this.logger.warn(`could not cancel model request ${id}: ${(error as Error).message}`);
    }
  }
}
