import { BadRequestException } from '@nestjs/common';
import { BodyShape, readBody, schemaOf } from './body-shape';

const shape: BodyShape = {
  fields: { input: { kind: 'object' }, note: { kind: 'text', max: 5, pattern: /^[a-z]+$/ }, amount: { kind: 'integer', min: 1, max: 9 } },
  required: ['input', 'amount'],
  closed: true,
};

const problemOf = (body: unknown) => {
  try {
    readBody(body, shape);
    return 'no problem';
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return (error as Error).message;
  }
};

describe('a body shape', () => {
  it('reads a body that fits, leaving out optional fields it lacks', () => {
    expect(readBody({ input: {}, amount: 3 }, shape)).toEqual({ input: {}, amount: 3 });
  });

  it('refuses what does not fit with a message naming the field, checking fields in order', () => {
    expect(problemOf([1])).toBe('the request body must be a JSON object');
    expect(problemOf({ input: {}, amount: 1, extra: 1 })).toBe('the request body has unknown field(s): extra');
    expect(problemOf({ input: [1], amount: 0 })).toBe('input must be a JSON object');
    expect(problemOf({ input: {}, note: 'ABC', amount: 1 })).toBe('note must match /^[a-z]+$/, got "ABC"');
    expect(problemOf({ input: {}, amount: 10 })).toBe('amount must be an integer from 1 to 9, got 10');
  });

  it('is the schema the OpenAPI document shows', () => {
    expect(schemaOf(shape)).toEqual({
      type: 'object',
      required: ['input', 'amount'],
      additionalProperties: false,
      properties: {
        input: { type: 'object' },
        note: { type: 'string', minLength: 1, maxLength: 5, pattern: '^[a-z]+$' },
        amount: { type: 'integer', minimum: 1, maximum: 9 },
      },
    });
  });
});
