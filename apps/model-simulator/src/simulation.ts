/** What `input.simulate` of a task asks the simulator to do. */
export interface Simulation {
  transientFailures?: number;
  permanentFailure?: boolean;
  latencyMs?: number;
  hang?: boolean;
  /** Answers 200 with a body this many bytes long. */
  oversizedBytes?: number;
  /** Sends the status and the start of a body, then nothing more. */
  stallBody?: boolean;
}

export type SimulatedAnswer =
  | { kind: 'report'; delayMs: number }
  | { kind: 'transient'; delayMs: number }
  | { kind: 'permanent' }
  | { kind: 'hang' }
  | { kind: 'oversized'; bytes: number }
  | { kind: 'stall' };

/** Reads `simulate` from the user message, which carries the task as JSON: `{ reportType, input }`. */
export function simulationOf(body: unknown): Simulation {
  const messages = (body as { messages?: Array<{ role?: string; content?: unknown }> })?.messages ?? [];
  const user = messages.find((m) => m.role === 'user');
  try {
    const task = JSON.parse(String(user?.content ?? '{}')) as { input?: { simulate?: Simulation } };
    const simulate = task.input?.simulate;
    return typeof simulate === 'object' && simulate !== null ? simulate : {};
  } catch {
    return {};
  }
}

/** The answer to the `call`-th request (from 1) with one idempotency key. Deterministic. */
export function answerFor(simulation: Simulation, call: number): SimulatedAnswer {
  const delayMs = Math.max(0, Number(simulation.latencyMs ?? 0));
  if (simulation.hang) return { kind: 'hang' };
  if (simulation.stallBody) return { kind: 'stall' };
  if (Number(simulation.oversizedBytes) > 0) return { kind: 'oversized', bytes: Math.min(Number(simulation.oversizedBytes), 64 * 1024 * 1024) };
  if (simulation.permanentFailure) return { kind: 'permanent' };
  if (call <= Number(simulation.transientFailures ?? 0)) return { kind: 'transient', delayMs };
  return { kind: 'report', delayMs };
}
