import { unretryableAnswers } from './deploy-evidence';
import type { HistoryEntry } from './history';

const submit = (status: number, key: string, repeat?: 'resend' | 'reuse'): HistoryEntry => ({
  kind: 'submit',
  at: 0,
  user: 'ann',
  key,
  repeat,
  bodyHash: 'h',
  behaviour: 'success',
  status,
});

describe('unretryableAnswers', () => {
  it('counts nothing a client asks again for: no answer, 5xx, 409, 429, and the 422 of a key sent with two bodies', () => {
    expect(
      unretryableAnswers([submit(202, 'a'), submit(0, 'b'), submit(503, 'c'), submit(409, 'd'), submit(429, 'e'), submit(422, 'f'), submit(202, 'f', 'reuse')]),
    ).toEqual([]);
  });

  it('names a refusal a client would give up on', () => {
    expect(unretryableAnswers([submit(401, 'a'), submit(422, 'b'), { kind: 'cancel', at: 0, user: 'ann', taskId: 't', status: 404 }])).toEqual([
      'submit by ann at 1970-01-01T00:00:00.000Z answered 401',
      'submit by ann at 1970-01-01T00:00:00.000Z answered 422',
      'cancel by ann at 1970-01-01T00:00:00.000Z answered 404',
    ]);
  });
});
