import { BadRequestException, CallHandler, ExecutionContext, Injectable, NestInterceptor, UnsupportedMediaTypeException } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { unstorableTextAt } from '@app/events';

/**
 * Every request, before its handler: a body must be JSON (else 415), and no path parameter, query
 * value or body string may hold text PostgreSQL cannot store (a NUL, a lone surrogate), which would
 * otherwise surface as a 500 from the database.
 */
@Injectable()
export class RequestHygieneInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    if (hasBody(request) && !isJson(request.headers['content-type'])) {
      throw new UnsupportedMediaTypeException(`the request body must be application/json, got ${request.headers['content-type'] ?? 'no Content-Type'}`);
    }
    for (const [part, value] of [
      ['path', request.params],
      ['query', request.query],
      ['body', request.body],
    ] as const) {
      const at = unstorableTextAt(value, part);
      if (at) throw new BadRequestException(`${at} holds text that cannot be stored (a NUL character or a lone surrogate)`);
    }
    return next.handle();
  }
}

function hasBody(request: Request): boolean {
  return Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
}

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(contentType.trim());
}
