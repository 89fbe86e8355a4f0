import SwaggerParser from '@apidevtools/swagger-parser';
import { serviceNames } from '@app/config';
import { Platform } from './support/platform';

/** The routes a service mapped at boot, as its log says: `Mapped {/tasks/:taskId, GET} route`. */
function mappedRoutes(output: string): Array<{ path: string; method: string }> {
  return [...output.matchAll(/Mapped \{([^,]+), (\w+)\} route/g)].map((m) => ({ path: m[1].replace(/:(\w+)/g, '{$1}'), method: m[2].toLowerCase() }));
}

/** Each service documents its HTTP API: a valid OpenAPI 3 document covering every route it answers. */
describe('OpenAPI', () => {
  const platform = new Platform();
  beforeAll(() => platform.start());
  afterAll(() => platform.stop());

  it.each(serviceNames)('%s serves a valid OpenAPI 3 document at /openapi.json covering every route, and /docs', async (service) => {
    const response = await fetch(`${platform.url(service)}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(document.openapi).toMatch(/^3\./);
    await SwaggerParser.validate(structuredClone(document) as never);
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });

    const routes = mappedRoutes(platform.service(service).output());
    expect(routes.length).toBeGreaterThanOrEqual(3);
    for (const { path, method } of routes) {
      const operation = document.paths[path]?.[method];
      expect(operation ? `${method} ${path}` : `${method} ${path} is not documented`).toBe(`${method} ${path}`);
      if (path === '/health' || path === '/metrics') expect(operation.security).toEqual([]);
      else expect(operation.responses['401']).toBeDefined();
    }

    const docs = await fetch(`${platform.url(service)}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');
  });
});
