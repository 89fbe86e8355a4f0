/** Markup the console built itself: inserted as it is. Anything else is text and is escaped. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeText(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => entities[c]);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeText(value);
}

/**
 * The console's only way to make HTML: every interpolated value is escaped (a dead letter whose
 * payload holds `<script>` shows as text), except fragments this same function made.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return new Html(strings.reduce((out, part, i) => out + part + (i < values.length ? render(values[i]) : ''), ''));
}
