/** The part of an OpenAPI 3 document a client depends on. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

interface Operation {
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
}

const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/**
 * What the head's document takes away from a client written against the release before it: an
 * operation gone, a status it answered gone, a field of an answer gone, or a parameter or request
 * field it now requires that a client did not send. Additions are compatible and not listed.
 */
export function breakingChanges(before: OpenApiDocument, after: OpenApiDocument): string[] {
  const found: string[] = [];
  for (const [path, item] of Object.entries(before.paths)) {
    for (const [method, was] of Object.entries(item)) {
      if (!methods.has(method)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const now = after.paths[path]?.[method];
      if (!now) {
        found.push(`${where} was removed`);
        continue;
      }
      for (const [status, response] of Object.entries(was.responses ?? {})) {
        const kept = now.responses?.[status];
        if (!kept) {
          found.push(`${where} no longer answers ${status}`);
          continue;
        }
        for (const [type, { schema }] of Object.entries(response.content ?? {})) {
          for (const field of fieldsOf(before, schema)) {
            if (!fieldsOf(after, kept.content?.[type]?.schema).has(field)) found.push(`${where} ${status} no longer has ${field}`);
          }
        }
      }
      const sentParameters = new Set((was.parameters ?? []).map((p) => `${p.in} ${p.name}`));
      for (const parameter of now.parameters ?? []) {
        if (parameter.required && !sentParameters.has(`${parameter.in} ${parameter.name}`))
          found.push(`${where} now requires ${parameter.in} parameter ${parameter.name}`);
      }
      for (const [type, { schema }] of Object.entries(now.requestBody?.content ?? {})) {
        const wasRequired = requiredOf(before, was.requestBody?.content?.[type]?.schema);
        for (const field of requiredOf(after, schema)) if (!wasRequired.has(field)) found.push(`${where} now requires ${field} in its body`);
      }
    }
  }
  return found;
}

function resolve(document: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  if (!schema?.$ref) return schema;
  return document.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')];
}

/** An answer's fields, nested ones as `a.b` and an array's items' as `a[].b`. */
function fieldsOf(document: OpenApiDocument, schema: Schema | undefined, prefix = '', depth = 0): Set<string> {
  const fields = new Set<string>();
  const resolved = resolve(document, schema);
  if (!resolved || depth > 5) return fields;
  if (resolved.type === 'array') return fieldsOf(document, resolved.items, `${prefix}[]`, depth + 1);
  for (const [name, property] of Object.entries(resolved.properties ?? {})) {
    const field = prefix ? `${prefix}.${name}` : name;
    fields.add(field);
    for (const nested of fieldsOf(document, property, field, depth + 1)) fields.add(nested);
  }
  return fields;
}

function requiredOf(document: OpenApiDocument, schema: Schema | undefined): Set<string> {
  return new Set(resolve(document, schema)?.required ?? []);
}
