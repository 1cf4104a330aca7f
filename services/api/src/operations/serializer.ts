/**
 * Response serializers compiled from the response schemas (fast-json-stringify, fastify's
 * library): a response carries exactly the documented fields, and writing it costs a generated
 * function instead of a generic `JSON.stringify` walk. Bodies end with a newline, so a response
 * printed by curl does not run into the shell prompt.
 */
import fastJson from 'fast-json-stringify';
import type { TSchema } from '@sinclair/typebox';

type Json = Record<string, unknown>;

/** Named schemas `$ref`erenced as `#/components/schemas/<name>`. */
export type ComponentSchemas = Readonly<Record<string, TSchema | Json>>;

const REF_PREFIX = '#/components/schemas/';

/**
 * Replaces component references by the schemas they name (response schemas hold no cycles), so
 * the serializer needs no reference resolution.
 * @throws Error for a reference to an unknown component (a programming error, found at start)
 */
export function inlineRefs(schema: unknown, components: ComponentSchemas): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(s, components));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as Json).$ref;
  if (typeof ref === 'string' && ref.startsWith(REF_PREFIX)) {
    const target = components[ref.slice(REF_PREFIX.length)];
    if (!target) throw new Error(`Unknown schema component ${ref}`);
    return inlineRefs(target, components);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inlineRefs(v, components)]));
}

/** The body of a list response, `{"object":"list","data":[item…]}`. */
export function listSchema(item: unknown): Json {
  return { type: 'object', required: ['object', 'data'], properties: { object: { const: 'list', type: 'string' }, data: { type: 'array', items: item } } };
}

/**
 * Compiles a serializer for `schema`.
 * @returns a function from a value matching the schema to its JSON text plus a trailing newline
 */
export function compileSerializer(schema: unknown, components: ComponentSchemas): (value: unknown) => string {
  return compileInlined(inlineRefs(schema, components));
}

/** Compiles a serializer for a schema without references. */
export function compileInlined(schema: unknown): (value: unknown) => string {
  const stringify = fastJson(schema as Parameters<typeof fastJson>[0]);
  return (value) => `${stringify(value)}\n`;
}

/**
 * The object schema of `schema` (an object, or a list of them) with the `oneOf` of each relation in
 * `relations` (`expand[]` names, docs/api.md section 10) narrowed to its scalar branches (an id
 * string, or null): what a response without `expand[]` holds there. fast-json-stringify picks a
 * `oneOf` branch by validating the value against each branch at run time (Ajv, per object and
 * relation); a serializer compiled from this schema writes the same bytes without that.
 * @param schema a schema whose references are inlined already (`inlineRefs`)
 */
export function withRelationIds(schema: unknown, relations: readonly string[], list: boolean): unknown {
  const item = (list ? (schema as { properties: { data: { items: Json } } }).properties.data.items : schema) as Json;
  const props = item.properties as Record<string, Json> | undefined;
  if (!props) return schema;
  const narrowed: Record<string, Json> = { ...props };
  for (const name of relations) {
    const branches = props[name]?.oneOf as Json[] | undefined;
    if (!branches) continue;
    const scalar = branches.filter((b) => (b.type === 'string' || b.type === 'null') && !b.properties);
    if (scalar.length) narrowed[name] = { type: scalar.length === 1 ? scalar[0]!.type : scalar.map((b) => b.type) };
  }
  const narrowedItem = { ...item, properties: narrowed };
  return list ? listSchema(narrowedItem) : narrowedItem;
}
