import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

/** What every error of the platform looks like (RFC 9457), whatever the route. */
const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status'],
  properties: {
    type: { type: 'string', example: 'about:blank' },
    title: { type: 'string', example: 'Bad Request' },
    status: { type: 'integer', example: 400 },
    detail: { type: 'string', example: 'reportType must match /^[a-z][a-z0-9_-]*$/' },
    instance: { type: 'string' },
  },
};

const problems: Record<string, string> = {
  '400': 'the request is malformed: `detail` says what, naming the field',
  '401': 'no token, or one that does not verify (`WWW-Authenticate` says why)',
  '403': 'the token may not do this (another user’s data, a viewer acting)',
  '503': 'a dependency is down (its database failing over, say): send it again after `Retry-After`',
};

const publicPaths = new Set(['/health', '/metrics']);

/** Adds the problem responses and the bearer requirement to every operation that Nest documented. */
function withPlatformConventions(document: OpenAPIObject): OpenAPIObject {
  document.components = { ...document.components, schemas: { ...document.components?.schemas, Problem: problemSchema } };
  for (const [route, item] of Object.entries(document.paths)) {
    for (const operation of Object.values(item) as Array<{ responses?: Record<string, unknown>; security?: unknown[] }>) {
      if (typeof operation !== 'object' || !operation || !('responses' in operation)) continue;
      if (publicPaths.has(route)) {
        operation.security = [];
        continue;
      }
      operation.security = [{ bearer: [] }];
      for (const [status, description] of Object.entries(problems)) {
        operation.responses![status] ??= { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
      }
    }
  }
  return document;
}

/**
 * GET /openapi.json and a browsable GET /docs on a service: every route Nest serves, the bearer
 * scheme, and the problem+json errors. Public, like /health: the contract is not a secret.
 */
export function serveOpenApi(app: INestApplication, service: string, description: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle(`${service} service`)
    .setDescription(description)
    .setVersion(process.env.npm_package_version || '0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'npm run -s token -- --user <id> for the local stack' }, 'bearer')
    .build();
  const document = withPlatformConventions(SwaggerModule.createDocument(app, config));
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml', customSiteTitle: `${service} API` });
  return document;
}
