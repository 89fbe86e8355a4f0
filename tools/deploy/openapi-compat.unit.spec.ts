import { breakingChanges, OpenApiDocument } from './openapi-compat';

const release: OpenApiDocument = {
  paths: {
    '/tasks': {
      post: {
        parameters: [{ name: 'idempotency-key', in: 'header', required: true }],
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Submit' } } } },
        responses: { '202': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Accepted' } } } }, '400': {} },
      },
    },
    '/tasks/{taskId}': {
      get: { responses: { '200': { content: { 'application/json': { schema: { type: 'object', properties: { state: { type: 'string' } } } } } } } },
    },
  },
  components: {
    schemas: {
      Submit: { type: 'object', required: ['reportType'], properties: { reportType: { type: 'string' }, input: { type: 'object' } } },
      Accepted: { type: 'object', properties: { taskId: { type: 'string' }, links: { type: 'object', properties: { self: { type: 'string' } } } } },
    },
  },
};

describe('breakingChanges', () => {
  it('finds nothing between a document and itself, nor in what the head adds', () => {
    const head = structuredClone(release);
    head.paths['/tasks/{taskId}/cancel'] = { post: { responses: { '202': {} } } };
    head.paths['/tasks'].post.responses!['409'] = {};
    head.components!.schemas!.Accepted.properties!.state = { type: 'string' };
    head.paths['/tasks'].post.parameters!.push({ name: 'traceparent', in: 'header', required: false });
    expect(breakingChanges(release, release)).toEqual([]);
    expect(breakingChanges(release, head)).toEqual([]);
  });

  it('names a removed operation, status, answer field, and what a client must now send', () => {
    const head = structuredClone(release);
    delete head.paths['/tasks/{taskId}'];
    delete head.paths['/tasks'].post.responses!['400'];
    delete head.components!.schemas!.Accepted.properties!.links.properties!.self;
    head.paths['/tasks'].post.parameters!.push({ name: 'x-tenant', in: 'header', required: true });
    head.components!.schemas!.Submit.required!.push('input');
    expect(breakingChanges(release, head)).toEqual([
      'POST /tasks 202 no longer has links.self',
      'POST /tasks no longer answers 400',
      'POST /tasks now requires header parameter x-tenant',
      'POST /tasks now requires input in its body',
      'GET /tasks/{taskId} was removed',
    ]);
  });
});
