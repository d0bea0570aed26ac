/** A JSON value that validates against a JSON Schema (the generic answer to a `json_schema` request). */
type Schema = Record<string, any>;

export function exampleOf(schema: Schema, root: Schema = schema, depth = 0): unknown {
  if (!schema || depth > 12) return null;
  if (schema.$ref) {
    const name = String(schema.$ref).split('/').pop()!;
    return exampleOf((root.$defs ?? root.definitions ?? {})[name], root, depth + 1);
  }
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const alt = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alt)) return exampleOf(alt.find((s: Schema) => s.type !== 'null') ?? alt[0], root, depth + 1);
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s: Schema) => exampleOf(s, root, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type ?? (schema.properties ? 'object' : 'string')) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = exampleOf(v as Schema, root, depth + 1);
      return out;
    }
    case 'array':
      return schema.items ? Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => exampleOf(schema.items, root, depth + 1)) : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return schema.minLength ? 'x'.repeat(schema.minLength) : 'unknown';
  }
}
