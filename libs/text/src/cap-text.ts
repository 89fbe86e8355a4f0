import { storableText } from './storable-text';

/** How much outside text (a model's error, a receiver's answer) an event or a row may carry. */
export const outsideTextLimit = 500;

/**
 * Outside text cut to `limit` characters, marked as cut, and never split inside a surrogate pair: an
 * outside party must not be able to grow our events, or put what PostgreSQL cannot store into them.
 */
export function capText(text: string, limit = outsideTextLimit): string {
  const clean = storableText(text);
  if (clean.length <= limit) return clean;
  let cut = limit - 1;
  if (/[\ud800-\udbff]/.test(clean[cut - 1])) cut--;
  return `${clean.slice(0, cut)}…`;
}
