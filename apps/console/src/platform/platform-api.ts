import { letGo } from '@app/failures';
import { Logger } from '@nestjs/common';
import { ServiceName } from '@app/config';
import { HttpException, HttpStatus } from '@nestjs/common';

const metricsLog = new Logger('platform-api');

/** An answer of a service that the console shows as it is (a 404 for a task that is not visible). */
export class ServiceAnswer extends HttpException {
  constructor(
    readonly service: ServiceName,
    status: number,
    readonly detail: string,
    /** Seconds to wait before asking again, when the service said (a busy row, a rate limit). */
    readonly retryAfter?: number,
  ) {
    super(`${service}: ${detail}`, status);
  }
}

/**
 * The services' HTTP APIs, called with the operator's own token: what the console shows is what
 * that token may read (a viewer gets inputs and URLs masked by the services themselves).
 */
export class PlatformApi {
  constructor(
    private readonly urls: Record<ServiceName, string>,
    private readonly token: string,
  ) {}

  async get<T>(service: ServiceName, path: string): Promise<T> {
    return this.call<T>(service, 'GET', path);
  }

  async post<T>(service: ServiceName, path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
    return this.call<T>(service, 'POST', path, body, headers);
  }

  async put<T>(service: ServiceName, path: string, body: unknown): Promise<T> {
    return this.call<T>(service, 'PUT', path, body);
  }

  async delete<T>(service: ServiceName, path: string): Promise<T> {
    return this.call<T>(service, 'DELETE', path);
  }

  /** GET that answers undefined for a 404 (a task that has no generation yet, say). */
  async find<T>(service: ServiceName, path: string): Promise<T | undefined> {
    try {
      return await this.get<T>(service, path);
    } catch (error) {
      if (error instanceof ServiceAnswer && error.getStatus() === HttpStatus.NOT_FOUND) return undefined;
      throw error;
    }
  }

  private async call<T>(service: ServiceName, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.urls[service]}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      throw new ServiceAnswer(service, HttpStatus.BAD_GATEWAY, `unreachable (${(error as Error).message})`);
    }
    const text = await response.text();
    if (!response.ok) {
      let detail = text.slice(0, 500);
      try {
        detail = (JSON.parse(text) as { detail?: string; title?: string }).detail ?? detail;
      } catch {
        // not problem+json: keep the text
      }
      const retryAfter = Number(response.headers.get('retry-after'));
      throw new ServiceAnswer(service, response.status, detail, Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 60) : undefined);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** A service's /metrics, parsed into `name{labels}` → value (public: no token is needed). */
  async metrics(service: ServiceName): Promise<Array<{ name: string; labels: Record<string, string>; value: number }>> {
    const response = await fetch(`${this.urls[service]}/metrics`, { signal: AbortSignal.timeout(5000) }).catch(
      letGo(`${service}'s metrics left out: it did not answer`, metricsLog, { level: 'warn' }),
    );
    if (!response?.ok) return [];
    return parseMetrics(await response.text());
  }
}

export function parseMetrics(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const samples = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}
