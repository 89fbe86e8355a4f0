/** NUL, and a UTF-16 surrogate without its other half: text PostgreSQL cannot store (nor UTF-8 carry). */
const unstorable = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableText(text: string): boolean {
  return !unstorable.test(text);
}

/**
 * Where in a JSON-like value (keys included) the first text PostgreSQL cannot store is, as a path
 * such as `input.notes[2]`, or undefined when there is none.
 */
export function unstorableTextAt(value: unknown, at: string): string | undefined {
  const pending: Array<[unknown, string]> = [[value, at]];
  while (pending.length > 0) {
    const [current, where] = pending.pop()!;
    if (typeof current === 'string') {
      if (!isStorableText(current)) return where;
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => pending.push([item, `${where}[${i}]`]));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        if (!isStorableText(key)) return `${where} (a key)`;
        pending.push([item, `${where}.${key}`]);
      }
    }
  }
  return undefined;
}
