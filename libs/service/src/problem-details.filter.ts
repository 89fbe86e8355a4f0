import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { isInfrastructureError } from '@app/failures';

/**
 * Every HTTP error as RFC 9457 problem details (`application/problem+json`): a title from the
 * status, the precise message as `detail`. A dependency that is down (the database failing over,
 * say) is a 503 with Retry-After, so that clients send the same request again; other unexpected
 * errors are logged and answered with a 500. Neither reveals anything of the cause.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(thrown: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const exception = fromBodyParser(thrown) ?? unavailable(thrown) ?? thrown;
    const status = exception instanceof HttpException ? exception.getStatus() : HttpStatus.INTERNAL_SERVER_ERROR;
    if (!(exception instanceof HttpException)) this.logger.error((exception as Error)?.stack ?? String(exception));
    const body = exception instanceof HttpException ? exception.getResponse() : undefined;
    if (typeof body === 'object' && body !== null && !('message' in body)) {
      // A structured answer of its own (terminus' health report with its 503, say): kept as it is.
      response.status(status).json(body);
      return;
    }
    const detail =
      status === HttpStatus.INTERNAL_SERVER_ERROR
        ? 'internal error'
        : typeof body === 'string'
          ? body
          : [(body as { message?: unknown })?.message].flat().join('; ');
    const headers = exception instanceof ProblemWithHeaders ? exception.headers : {};
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    response
      .status(status)
      .type('application/problem+json')
      .json({ type: 'about:blank', title: HttpStatus[status]?.replace(/_/g, ' ').toLowerCase() ?? 'error', status, detail });
  }
}

/** Seconds a client is asked to wait before sending a request again while a dependency is down. */
const retryAfterSeconds = 5;

function unavailable(error: unknown): HttpException | undefined {
  if (error instanceof HttpException || !isInfrastructureError(error)) return undefined;
  new Logger('http').warn(`a dependency is unavailable: ${(error as Error).message}`);
  return new ProblemWithHeaders(HttpStatus.SERVICE_UNAVAILABLE, 'a dependency of this service is unavailable; send the request again shortly', {
    'Retry-After': String(retryAfterSeconds),
  });
}

/** Express' body parser reports a body it cannot read with its own error types. */
function fromBodyParser(error: unknown): HttpException | undefined {
  const { type, limit } = (error ?? {}) as { type?: string; limit?: number };
  if (type === 'entity.parse.failed') return new HttpException(`the request body is not valid JSON: ${(error as Error).message}`, HttpStatus.BAD_REQUEST);
  if (type === 'entity.too.large') return new HttpException(`the request body is larger than the limit of ${limit} bytes`, HttpStatus.PAYLOAD_TOO_LARGE);
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return new HttpException((error as Error).message, HttpStatus.UNSUPPORTED_MEDIA_TYPE);
  return undefined;
}

/** An HttpException that also sets response headers (Retry-After, say). */
export class ProblemWithHeaders extends HttpException {
  constructor(
    status: number,
    message: string,
    readonly headers: Record<string, string>,
  ) {
    super(message, status);
  }
}
