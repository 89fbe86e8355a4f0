import { childTraceparent, traceparentFor } from './traceparent';

describe('traceparent', () => {
  const correlationId = '8c97ce16-42af-4529-bfc7-3960c00428c3';

  it("uses the task's correlation id as the trace id", () => {
    expect(traceparentFor(correlationId)).toMatch(/^00-8c97ce1642af4529bfc73960c00428c3-[0-9a-f]{16}-01$/);
  });

  it('continues the trace of the message being handled with a new span', () => {
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const child = childTraceparent(incoming, correlationId);
    expect(child).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(child).not.toBe(incoming);
  });

  it('starts from the correlation id when the incoming header is missing or malformed', () => {
    expect(childTraceparent(undefined, correlationId)).toMatch(/^00-8c97ce16/);
    expect(childTraceparent('garbage', correlationId)).toMatch(/^00-8c97ce16/);
  });
});
