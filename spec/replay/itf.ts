import * as fs from 'node:fs';

/** ITF (the Informal Trace Format) values as plain data: integers as numbers, sets and tuples as arrays. */
export type Plain = null | boolean | number | string | Plain[] | { [key: string]: Plain };

export function plain(value: unknown): Plain {
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== 'object') return value as Plain;
  const record = value as Record<string, unknown>;
  if ('#bigint' in record) return Number(record['#bigint']);
  if ('#set' in record) return (record['#set'] as unknown[]).map(plain);
  if ('#tup' in record) return (record['#tup'] as unknown[]).map(plain);
  if ('#map' in record) return (record['#map'] as unknown[]).map(plain);
  return Object.fromEntries(
    Object.entries(record)
      .filter(([key]) => !key.startsWith('#'))
      .map(([key, v]) => [key, plain(v)]),
  );
}

/** One state of a trace: the model's world, and the action that led to it. */
export interface TraceState<W> {
  world: W;
  action: string;
}

/** A trace written by `quint run --mbt --out-itf`: each state's world and the action taken to reach it. */
export function readTrace<W>(file: string): Array<TraceState<W>> {
  const itf = JSON.parse(fs.readFileSync(file, 'utf8')) as { vars: string[]; states: Array<Record<string, unknown>> };
  const worldVar = itf.vars.find((v) => v.endsWith('::w'))!;
  return itf.states.map((state) => ({ world: plain(state[worldVar]) as W, action: String(state['mbt::actionTaken']) }));
}
