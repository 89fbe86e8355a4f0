export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** 0.2 spreads each delay uniformly over ±20 %. */
  jitter: number;
}

/** Exponential: initial × 2^(attempt−1), capped, then spread by jitter. `attempt` counts from 1. */
export function exponentialDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const base = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.max(0, attempt - 1));
  return withJitter(base, policy.jitter, random);
}

/** A delay spread uniformly over [delay × (1 − jitter), delay × (1 + jitter)], never negative. */
export function withJitter(delayMs: number, jitter: number, random: () => number = Math.random): number {
  const spread = delayMs * jitter;
  return Math.max(0, Math.round(delayMs - spread + random() * 2 * spread));
}

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `"5s,30s,2m"` → `[5000, 30000, 120000]`; throws naming the part it cannot read. */
export function parseDurations(text: string): number[] {
  return text.split(',').map((part) => parseDuration(part.trim()));
}

export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a duration such as 250ms, 5s, 2m or 1h`);
  return Math.round(Number(match[1]) * units[match[2]]);
}
