/** Not NUL, nor a UTF-16 surrogate without its other half: text PostgreSQL can store (and UTF-8 carry). */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

/** The text made storable: NULs dropped, each lone surrogate replaced by U+FFFD. */
export function storableText(text: string): string {
  return text.replaceAll('\u0000', '').toWellFormed();
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
