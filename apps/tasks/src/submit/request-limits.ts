import { unstorableTextAt } from '@app/text';

export interface InputLimits {
  /** The largest input text, in UTF-8 bytes: HTTP_BODY_LIMIT, which caps what POST /tasks can carry. */
  maxBytes: number;
  maxDepth: number;
  maxValues: number;
  /** Whether `input.simulate` (the model simulator's fault switches) may be used. */
  simulation: boolean;
}

export const defaultInputLimits: InputLimits = { maxBytes: 64 * 1024, maxDepth: 32, maxValues: 10_000, simulation: false };

/** Why a request's input is refused, as a code (for TaskRejected) and a sentence (for a 400). */
export interface InputRefusal {
  code: 'INPUT_TOO_DEEP' | 'INPUT_TOO_LARGE' | 'UNSTORABLE_TEXT' | 'SIMULATION_OFF';
  message: string;
}

/**
 * An input text over the byte limit: an outside request meets the cap POST /tasks's body has, before
 * it is parsed, sealed (a third larger) or written anywhere.
 */
export function inputTooLarge(text: string, limits: InputLimits): InputRefusal | undefined {
  if (Buffer.byteLength(text, 'utf8') <= limits.maxBytes) return undefined;
  return { code: 'INPUT_TOO_LARGE', message: `input must be at most ${limits.maxBytes} bytes` };
}

/**
 * The limits every request's input must keep, whether it came by POST /tasks or by an outside
 * TaskRequested: depth and number of values (a small body can still be a deep or wide one), text
 * PostgreSQL can store, and the simulator's switches only where simulation is on.
 */
export function checkInput(input: Record<string, unknown>, limits: InputLimits): InputRefusal | undefined {
  let values = 0;
  const pending: Array<[unknown, number]> = [[input, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (depth > limits.maxDepth) return { code: 'INPUT_TOO_DEEP', message: `input must be at most ${limits.maxDepth} levels deep` };
    if (++values > limits.maxValues) return { code: 'INPUT_TOO_LARGE', message: `input must hold at most ${limits.maxValues} values` };
    if (value !== null && typeof value === 'object') for (const item of Object.values(value)) pending.push([item, depth + 1]);
  }
  const unstorable = unstorableTextAt(input, 'input');
  if (unstorable) return { code: 'UNSTORABLE_TEXT', message: `${unstorable} holds text that cannot be stored (a NUL character or a lone surrogate)` };
  if ('simulate' in input && !limits.simulation) {
    return { code: 'SIMULATION_OFF', message: 'input.simulate is accepted only when MODEL_SIMULATION=on (the bundled model simulator)' };
  }
  return undefined;
}
