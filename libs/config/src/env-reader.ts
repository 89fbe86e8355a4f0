import { ConfigError } from './config-error';

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const sizeUnits: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

function sizeInBytes(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(b|kb|mb|gb)?$/.exec(text.trim().toLowerCase());
  return match ? Math.floor(Number(match[1]) * sizeUnits[match[2] ?? 'b']) : undefined;
}

/**
 * Reads settings from an environment and collects every problem — each naming its variable and what
 * it got — instead of stopping at the first: `done` throws them all at once as a ConfigError.
 */
export class EnvReader {
  readonly problems: string[] = [];

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly owner: string,
  ) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  private problem<T>(name: string, expected: string, fallback: T): T {
    this.problems.push(`${name} must be ${expected}, got "${this.env[name]}"`);
    return fallback;
  }

  text(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  optionalText(name: string): string | undefined {
    return this.raw(name);
  }

  integer(name: string, fallback: number, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    return Number.isInteger(value) && value >= min && value <= max ? value : this.problem(name, `a whole number from ${min} to ${max}`, fallback);
  }

  positive(name: string, fallback: number): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    return value > 0 && Number.isFinite(value) ? value : this.problem(name, 'a positive number', fallback);
  }

  /** `250ms`, `5s`, `2m`, `1h`. */
  duration(name: string, fallback: string): number {
    return this.parseDuration(name, this.raw(name) ?? fallback);
  }

  /** A size: `65536`, `64kb`, `1mb` (as body-parser reads them, powers of 1024). */
  bytes(name: string, fallback: string): number {
    return sizeInBytes(this.raw(name) ?? fallback) ?? this.problem(name, 'a size such as 65536, 64kb or 1mb', sizeInBytes(fallback) ?? 0);
  }

  /** A comma-separated list of durations; empty is an empty list. */
  durations(name: string, fallback: string): number[] {
    const raw = this.env[name] ?? fallback;
    return raw.trim() === '' ? [] : raw.split(',').map((part) => this.parseDuration(name, part.trim()));
  }

  /** `on` or `off`. */
  flag(name: string, fallback: boolean): boolean {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    if (raw === 'on' || raw === 'off') return raw === 'on';
    return this.problem(name, '"on" or "off"', fallback);
  }

  list(name: string): string[] {
    return (this.env[name] ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  }

  /** A value a parser of its own reads; what it throws becomes this variable's problem. */
  parsed<T>(name: string, parse: (raw: string | undefined) => T, fallback: T): T {
    try {
      return parse(this.raw(name));
    } catch (error) {
      this.problems.push(`${name}: ${(error as Error).message}`);
      return fallback;
    }
  }

  /** The settings, or every problem found at once. */
  done<T>(settings: T): T {
    if (this.problems.length) throw new ConfigError(this.owner, this.problems);
    return settings;
  }

  private parseDuration(name: string, text: string): number {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
    return match ? Math.round(Number(match[1]) * units[match[2]]) : this.problem(name, 'a duration such as 250ms, 5s, 2m or 1h', 0);
  }
}

/**
 * Runs every configuration loader of a service and reports all their problems together (a service
 * reads several: its own, messaging's, authentication's…), or nothing when all hold.
 */
export function configurationProblems(loaders: Array<() => unknown>): string[] {
  const problems: string[] = [];
  for (const load of loaders) {
    try {
      load();
    } catch (error) {
      problems.push(...(error instanceof ConfigError ? error.problems : [(error as Error).message]));
    }
  }
  return problems;
}
