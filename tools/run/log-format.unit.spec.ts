import { formatLogLine } from './log-format';

describe('formatLogLine', () => {
  it('shows a JSON line as time, level, context, message and the ids it carries', () => {
    const line = JSON.stringify({
      level: 'warn',
      time: '2026-11-30T12:04:05.120Z',
      service: 'quota',
      context: 'webhooks',
      msg: 'retrying',
      taskId: 't-1',
      traceId: 'ab',
    });
    expect(formatLogLine(line)).toBe('12:04:05.120 WARN  [webhooks] retrying  taskId=t-1  traceId=ab');
  });

  it("adds an error's stack on the lines after", () => {
    const line = JSON.stringify({ level: 'fatal', time: '2026-11-30T12:04:05.120Z', msg: 'boot failed', err: { message: 'no', stack: 'Error: no\n    at x' } });
    expect(formatLogLine(line)).toBe('12:04:05.120 FATAL boot failed\nError: no\n    at x');
  });

  it('leaves a line that is not JSON as it is', () => {
    expect(formatLogLine('Segmentation fault')).toBe('Segmentation fault');
    expect(formatLogLine('42')).toBe('42');
  });
});
