import { BadRequestException } from '@nestjs/common';
import { requireInteger, requireObject, requireText } from './validate';

export type FieldRule =
  | { kind: 'text'; max: number; pattern?: RegExp; description?: string; example?: string }
  | { kind: 'integer'; min: number; max: number; description?: string }
  | { kind: 'object'; description?: string };

/**
 * A request body, defined once: the same shape checks a body (with the platform's precise 400
 * messages, in the order of its fields) and is what the OpenAPI document shows.
 */
export interface BodyShape {
  fields: Record<string, FieldRule>;
  required: string[];
  /** Refuse fields the shape does not name (400 naming them). */
  closed: boolean;
}

export function readBody(body: unknown, shape: BodyShape, name = 'the request body'): Record<string, unknown> {
  const fields = requireObject(body, name);
  if (shape.closed) {
    const unknown = Object.keys(fields).filter((field) => !(field in shape.fields));
    if (unknown.length) throw new BadRequestException(`${name} has unknown field(s): ${unknown.join(', ')}`);
  }
  const read: Record<string, unknown> = {};
  for (const [field, rule] of Object.entries(shape.fields)) {
    const value = fields[field];
    if (value === undefined && !shape.required.includes(field)) continue;
    if (rule.kind === 'text') read[field] = requireText(value, field, rule);
    else if (rule.kind === 'integer') read[field] = requireInteger(value, field, rule);
    else read[field] = requireObject(value, field);
  }
  return read;
}

/** The shape as an OpenAPI (JSON Schema) object, for @ApiBody. */
export function schemaOf(shape: BodyShape): Record<string, unknown> {
  const properties = Object.fromEntries(
    Object.entries(shape.fields).map(([field, rule]) => {
      const common = { description: rule.description };
      if (rule.kind === 'text')
        return [field, { ...common, type: 'string', minLength: 1, maxLength: rule.max, pattern: rule.pattern?.source, example: rule.example }];
      if (rule.kind === 'integer') return [field, { ...common, type: 'integer', minimum: rule.min, maximum: rule.max }];
      return [field, { ...common, type: 'object' }];
    }),
  );
  // OpenAPI 3.0 takes no empty `required`: a shape of optional fields alone has none.
  const required = shape.required.length > 0 ? { required: shape.required } : {};
  return { type: 'object', ...required, additionalProperties: !shape.closed, properties: JSON.parse(JSON.stringify(properties)) };
}
