/** The ids worth seeing beside a message when reading logs by eye. */
const shownIds = ['taskId', 'eventId', 'traceId'] as const;

interface LogLine {
  level?: string;
  time?: string;
  context?: string;
  msg?: string;
  err?: { message?: string; stack?: string };
  req?: { method?: string; url?: string };
  [field: string]: unknown;
}

/**
 * One JSON log line as a person reads it: `12:04:05.120 WARN  [webhooks] message  taskId=…`. A line
 * that is not JSON (a crash before the logger existed) is shown as it is.
 */
export function formatLogLine(line: string): string {
  let entry: LogLine;
  try {
    entry = JSON.parse(line) as LogLine;
  } catch {
    return line;
  }
  if (typeof entry !== 'object' || entry === null) return line;
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
  const level = (entry.level ?? 'info').toUpperCase().padEnd(5);
  const context = entry.context ? `[${entry.context}] ` : '';
  const ids = shownIds.filter((id) => typeof entry[id] === 'string').map((id) => `${id}=${String(entry[id])}`);
  const error = entry.err?.stack ?? entry.err?.message;
  return [`${time} ${level} ${context}${entry.msg ?? ''}`, ...ids].join('  ') + (error ? `\n${error}` : '');
}
