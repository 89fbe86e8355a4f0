import { BadRequestException } from '@nestjs/common';

/** Small explicit checks that answer 400 with a message naming the field and what was wrong. */
export function requireObject(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadRequestException(`${name} must be a JSON object`);
  return value as Record<string, unknown>;
}

export function requireText(value: unknown, name: string, { max = 255, pattern }: { max?: number; pattern?: RegExp } = {}): string {
  if (typeof value !== 'string' || value.trim() === '') throw new BadRequestException(`${name} is required and must be a non-empty string`);
  if (value.length > max) throw new BadRequestException(`${name} must be at most ${max} characters, got ${value.length}`);
  if (pattern && !pattern.test(value)) throw new BadRequestException(`${name} must match ${pattern}, got "${value}"`);
  return value;
}

export function requireInteger(value: unknown, name: string, { min, max }: { min: number; max: number }): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new BadRequestException(`${name} must be an integer from ${min} to ${max}, got ${shown(value)}`);
  }
  return value;
}

export function optionalInteger(raw: unknown, name: string, fallback: number, bounds: { min: number; max: number }): number {
  if (raw === undefined || raw === '') return fallback;
  const value = typeof raw === 'string' && /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  return requireInteger(Number.isNaN(value) ? raw : value, name, bounds);
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function requireUuid(value: unknown, name: string): string {
  if (typeof value !== 'string' || !uuidPattern.test(value)) throw new BadRequestException(`${name} must be a UUID, got "${String(value)}"`);
  return value.toLowerCase();
}

/** The Idempotency-Key header: required, at most 255 visible ASCII characters. */
export function requireIdempotencyKey(key: string | undefined): string {
  if (key === undefined || key === '') throw new BadRequestException('the Idempotency-Key header is required');
  if (key.length > 255) throw new BadRequestException(`the Idempotency-Key header must be at most 255 characters, got ${key.length}`);
  if (!/^[\x21-\x7e]+$/.test(key)) throw new BadRequestException('the Idempotency-Key header may hold only visible ASCII characters');
  return key;
}

/** An optional ISO 8601 instant in a query parameter. */
export function optionalInstant(raw: unknown, name: string): Date | undefined {
  if (raw === undefined || raw === '') return undefined;
  const text = requireText(raw, name, { max: 40 });
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) throw new BadRequestException(`${name} must be an ISO 8601 date or time, got "${text}"`);
  return at;
}

/** A value as an error quotes it: a primitive, short; an array or object by its kind, never walked. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value !== null && typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}… (${text.length} characters)` : text;
}
