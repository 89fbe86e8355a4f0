import { capText } from '@app/text';
import { ErrorCode, errorCodes } from '@app/failures';

export type ModelOutcome = { ok: true; content: string } | { ok: false; code: ErrorCode; retriable: boolean; message: string };

function failure(code: ErrorCode, message: string): ModelOutcome {
  return { ok: false, code, retriable: errorCodes[code].retriable, message: capText(message) };
}

/**
 * What an answer of the model means. Transient: 5xx, 429 (and a timeout or a refused connection,
 * see classifyFailure). Permanent: any other 4xx, and an answer without a report in it.
 */
export function classifyResponse(status: number, body: unknown): ModelOutcome {
  if (status === 429) return failure('MODEL_RATE_LIMITED', 'the model is rate limiting (429)');
  if (status >= 500) return failure('MODEL_UNAVAILABLE', `the model answered ${status}`);
  if (status >= 400) return failure('MODEL_REJECTED', `the model refused the request (${status}): ${errorText(body)}`);
  const content = (body as { choices?: Array<{ message?: { content?: unknown } }> })?.choices?.[0]?.message?.content;
  if (status !== 200 || typeof content !== 'string' || content.trim() === '') {
    return failure('INVALID_OUTPUT', `the model's answer (${status}) holds no report`);
  }
  return { ok: true, content };
}

/** An answer past the size limit is not a report: asking again would get the same. */
export function tooLarge(maxBytes: number): ModelOutcome {
  return failure('INVALID_OUTPUT', `the model's answer is larger than ${maxBytes} bytes (MODEL_MAX_RESPONSE_BYTES)`);
}

/** The call was stopped on purpose: its task was cancelled. Nothing to retry. */
export function cancelledCall(): ModelOutcome {
  return failure('CANCELLED', 'the task was cancelled: the model call was aborted');
}

/**
 * A call that got no (whole) answer: a timeout — before the answer or while its body was read — or a
 * connection that failed are worth another attempt.
 */
export function classifyFailure(error: unknown): ModelOutcome {
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return failure('MODEL_TIMEOUT', 'the model did not answer in time');
  return failure('MODEL_UNAVAILABLE', `the model could not be reached: ${(error as Error)?.message ?? String(error)}`);
}

function errorText(body: unknown): string {
  const message = (body as { error?: { message?: unknown } })?.error?.message;
  return typeof message === 'string' ? message : (JSON.stringify(body)?.slice(0, 200) ?? '');
}
