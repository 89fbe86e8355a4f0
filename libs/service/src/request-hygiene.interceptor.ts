import { BadRequestException, CallHandler, ExecutionContext, Injectable, NestInterceptor, UnsupportedMediaTypeException } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { unstorableTextAt } from '@app/text';

/**
 * No body of ours needs more (an input is at most 32 levels, one below the body's top). Deeper, a
 * handler's recursion (a hash, a quoted value in an error) would overflow the stack: a 500.
 */
export const maxBodyDepth = 64;

/**
 * Every request, before its handler: a body must be JSON (else 415) nested at most `maxBodyDepth`
 * levels, and no path parameter, query value or body string may hold text PostgreSQL cannot store
 * (a NUL, a lone surrogate), which would otherwise surface as a 500 from the database.
 */
@Injectable()
export class RequestHygieneInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    if (hasBody(request) && !isJson(request.headers['content-type'])) {
      throw new UnsupportedMediaTypeException(`the request body must be application/json, got ${request.headers['content-type'] ?? 'no Content-Type'}`);
    }
    if (nestedDeeperThan(request.body, maxBodyDepth)) throw new BadRequestException(`the request body is nested deeper than ${maxBodyDepth} levels`);
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

/** Without recursion: the value may be 30,000 levels deep. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max) return true;
    for (const item of Object.values(current)) pending.push([item, depth + 1]);
  }
  return false;
}

function hasBody(request: Request): boolean {
  return Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
}

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(contentType.trim());
}
