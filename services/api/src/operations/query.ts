/**
 * Query strings validated by schema (docs/api.md section 4): the pieces every list, search and
 * expandable read shares (`limit`, `after`, `before`, `query`, `expand[]`), and the validator that
 * turns the raw query (strings, or arrays of strings for repeated names) into typed values.
 *
 * A schema may carry `x-error-code` (and `x-param`) to say which registered error its failure is:
 * a bad cursor is `invalid_cursor`, `after` with `before` is `parameters_exclusive`; anything else
 * is `parameter_invalid`. Every error names the parameter in `param`.
 */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { ApiError, type ErrorCode } from '@dms/errors';
import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { MAX_QUERY_LENGTH, type SearchRegistry } from '@dms/search';

/** `limit` when a list request gives none. */
export const DEFAULT_LIMIT = 10;
/** Largest `limit` accepted; larger values are 400 `parameter_invalid`. */
export const MAX_LIMIT = 100;
/** Longest object id: a prefix of at most four letters, `_`, 24 base62 characters (docs/api.md section 3). */
export const MAX_ID_LENGTH = 29;
/** The query parameter naming expansions (repeatable: `expand[]=customer&expand[]=organisation`). */
export const EXPAND_PARAM = 'expand[]';

// A cursor is an object id: '' and U+0000 (which PostgreSQL text cannot hold) can name none.
// Its length is bounded by the longest id (a four-letter prefix, `_`, 24 characters).
const cursor = (name: string, description: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_ID_LENGTH,
    pattern: '^[^\\u0000]*$',
    description,
    'x-error-code': 'invalid_cursor',
    'x-message': `${name} must be an object id.`,
  });

/**
 * `limit`: decimal digits only (no sign, exponent, hex or spaces, which a numeric coercion would
 * let through), 1 to 100 with leading zeros allowed; handed to the handler as a number.
 */
const limit = Type.Unsafe<number>({
  type: 'string',
  pattern: `^(?=[0-9]{1,4}$)0*([1-9][0-9]?|${MAX_LIMIT})$`,
  default: String(DEFAULT_LIMIT),
  description: `Objects per page (1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT}).`,
  'x-integer': true,
  'x-message': `limit must be an integer from 1 to ${MAX_LIMIT}.`,
});

/** `limit`, `after`, `before` of lists and searches. */
export const pageProperties = {
  limit: Type.Optional(limit),
  after: Type.Optional(cursor('after', 'An object id of this list: return the objects after it (older). Not with `before`.')),
  before: Type.Optional(cursor('before', 'An object id of this list: return the objects just before it (newer). Not with `after`.')),
};

/** Where an `expand[]` schema keeps the check of its deeper values (a symbol: neither Ajv nor OpenAPI sees it). */
export const EXPAND_CHECK = Symbol('expandCheck');

/**
 * `expand[]` with the given values, or chains of relations starting with one of them
 * (`debt.customer`, docs/api.md section 15), which `check` verifies level by level.
 */
export function expandProperty<const T extends readonly string[]>(values: T, check?: (paths: readonly string[]) => void) {
  const first = values.map((v) => v.replace(/[^a-z_]/g, '')).join('|');
  return Type.Optional(
    Type.Unsafe<Array<T[number]>>({
      type: 'array',
      items: { type: 'string', maxLength: 200, anyOf: [{ enum: [...values] }, { pattern: `^(${first})(\\.[a-z_]+){1,}$` }] },
      description: `Embed the related objects in place of their ids: ${values.map((v) => `\`${v}\``).join(', ')}, or relations of those joined by \`.\` (\`${values[0]}.…\`), at most 4 levels.`,
      ...(check ? { [EXPAND_CHECK]: check } : {}),
      // A bound on the work one request can ask for: each relation, and a few chains of each.
      maxItems: Math.max(20, values.length),
      uniqueItems: true,
    }),
  );
}

/** The relations an operation's query schema accepts at the first level of `expand[]`. */
export function expandRelations(query: TSchema | undefined): readonly string[] {
  const items = (query as { properties?: Record<string, { items?: { anyOf?: Array<{ enum?: string[] }> } }> } | undefined)?.properties?.[EXPAND_PARAM]?.items;
  return items?.anyOf?.[0]?.enum ?? [];
}

/** Runs the deeper check of an operation's `expand[]` (see `expandProperty`) on a parsed query. */
export function checkExpand(query: TSchema | undefined, parsed: Record<string, unknown>): void {
  const property = (query as { properties?: Record<string, Record<symbol, unknown>> } | undefined)?.properties?.[EXPAND_PARAM];
  const check = property?.[EXPAND_CHECK] as ((paths: readonly string[]) => void) | undefined;
  const paths = parsed[EXPAND_PARAM] as string[] | undefined;
  if (check && paths?.length) check(paths);
}

/** The query schema of an operation: the given parameters and nothing else. */
export function querySchema<P extends TProperties>(properties: P): TObject<P> {
  const paged = 'after' in properties && 'before' in properties;
  return Type.Object(properties, {
    additionalProperties: false,
    // `after` and `before` select opposite directions: both at once is an error of its own.
    ...(paged ? { allOf: [{ not: { required: ['after', 'before'] }, 'x-error-code': 'parameters_exclusive', 'x-param': 'before' }] } : {}),
  });
}

/**
 * A query schema of a plain list: `limit`, `after`, `before`, an optional `query` (the search
 * grammar on the list's own fields, docs/api.md section 15) and the given extras.
 */
export function pageQuery<P extends TProperties>(extra: P = {} as P) {
  const query = Type.Optional(
    Type.String({
      maxLength: MAX_QUERY_LENGTH,
      description: `Narrows the list with a search expression (at most ${MAX_QUERY_LENGTH} characters), in the grammar and on the fields of this resource's search (every object with metadata takes \`metadata['key']\`).`,
    }),
  );
  return querySchema({ ...pageProperties, query, ...extra });
}

// Query strings are text: a single value becomes an array where one is expected, and defaults are
// filled in. Values stay strings (numbers are checked by pattern, see `limit`), so `+5` or `1e2`
// are refused rather than coerced. Bodies use the strict instance of @dms/domain's
// kernel/validation.ts instead.
const ajv = new Ajv2020({ allErrors: false, strict: true, strictRequired: false, coerceTypes: 'array', useDefaults: true, verbose: true });
for (const keyword of ['x-error-code', 'x-param', 'x-message']) ajv.addKeyword({ keyword, schemaType: 'string' });
ajv.addKeyword({ keyword: 'x-integer', schemaType: 'boolean' });

function errorOf(e: ErrorObject): ApiError {
  const schema = (e.parentSchema ?? {}) as Record<string, string | undefined>;
  const name = e.instancePath.split('/')[1]?.replaceAll('~1', '/').replaceAll('~0', '~');
  const param =
    schema['x-param'] ??
    (e.keyword === 'additionalProperties'
      ? String(e.params.additionalProperty)
      : e.keyword === 'required'
        ? String(e.params.missingProperty)
        : (name ?? 'query'));
  if (Array.isArray(e.data) && schema.type !== 'array') {
    return new ApiError('parameter_invalid', `${param} must be given once, as a string.`, { param });
  }
  const code = (schema['x-error-code'] as ErrorCode | undefined) ?? 'parameter_invalid';
  const message =
    schema['x-message'] ??
    (code === 'parameters_exclusive'
      ? 'after and before cannot be used together.'
      : e.keyword === 'additionalProperties'
        ? `Unknown query parameter: ${param}.`
        : e.keyword === 'required'
          ? `${param} is required.`
          : `${param} ${e.message ?? 'is invalid'}.`);
  return new ApiError(code, message, { param });
}

/**
 * Compiles a query schema into a parser of Express's raw query object.
 * @returns a function from the raw query to the typed query (a copy: the request is not modified)
 * @throws ApiError 400 `parameter_invalid`, `invalid_cursor`, `parameters_exclusive`, or the code the
 *   failing schema names, with `param`
 */
export function queryParser<T>(schema: TSchema): (raw: Record<string, unknown>) => T {
  const validate = ajv.compile(schema);
  const properties = (schema as { properties?: Record<string, Record<string, unknown>> }).properties ?? {};
  const integers = Object.keys(properties).filter((name) => properties[name]!['x-integer'] === true);
  return (raw) => {
    const copy: Record<string, unknown> = { ...raw };
    if (!validate(copy)) throw errorOf(validate.errors![0]!);
    for (const name of integers) if (copy[name] !== undefined) copy[name] = Number(copy[name]);
    return copy as T;
  };
}

/** "`status` (`:`; one of …), …": the fields of `registry` with their operators and values. */
export function searchFieldsDescription(registry: SearchRegistry): string {
  const list = Object.entries(registry)
    .map(([name, f]) => `\`${f.keyed ? `${name}['key']` : name}\` (${f.operators.map((o) => `\`${o}\``).join(' ')}; ${f.expects})`)
    .join(', ');
  return `Search expression (at most ${MAX_QUERY_LENGTH} characters): terms \`field:value\` (or \`=\`) or \`field>value\` (also \`>=\`, \`<\`, \`<=\`) joined by \`AND\`, \`OR\` (any case) or spaces (= AND), never AND and OR in one query; values bare, \`"double"\` or \`'single'\` quoted. Fields: ${list}.`;
}

/**
 * `{query, limit, after, before, ...extra}` with `query` required. The lexer reports malformed
 * queries itself (400 `invalid_search_query` with the position), so the schema checks presence only.
 */
export function searchQuery<P extends TProperties>(registry: SearchRegistry, extra: P = {} as P) {
  return querySchema({
    query: Type.String({ maxLength: MAX_QUERY_LENGTH, 'x-error-code': 'invalid_search_query', description: searchFieldsDescription(registry) }),
    ...pageProperties,
    ...extra,
  });
}
