import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Observable, tap } from 'rxjs';
import { httpRequestSeconds } from './metrics';

/** Times every routed request, labelled by its route pattern (never its path, which holds ids). */
@Injectable()
export class HttpMetricsInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const timer = httpRequestSeconds.startTimer({ method: request.method, route: (request.route as { path?: string } | undefined)?.path ?? 'unrouted' });
    const done = (status: number) => timer({ status: String(status) });
    return next.handle().pipe(
      tap({
        next: () => done(http.getResponse<Response>().statusCode),
        error: (error: { status?: number; getStatus?: () => number }) => done(error.getStatus?.() ?? error.status ?? 500),
      }),
    );
  }
}
