/**
 * Request validation with Ajv against JSON Schemas (draft 2020-12). The same schemas feed the
 * OpenAPI document, so what is documented is what is enforced. Every failure becomes one 400
 * `validation_failed` naming the first field in `param` and all of them in `errors` (the first
 * problem of each).
 *
 * Rules between fields are schemas too, and their errors name a field: `not: {required: [a, b]}`
 * (not both: names `b`, "b cannot be given with a") and `oneOf` of single `required`s (exactly one:
 * names the first, "give exactly one of a or b", whether none or several were given).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { ApiError, type FieldError } from '@dms/errors';

// ajv-formats is CommonJS: under NodeNext its plugin is `module.exports`, typed as `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020, formats: string[]) => void;

/** The shared Ajv instance: all errors, no coercion, no defaults injected into bodies. */
// `verbose` puts the failing schema on each error, which names the fields of a rule between fields.
export const ajv = new Ajv2020({
  allErrors: true,
  strict: true,
  strictRequired: false,
  allowUnionTypes: true,
  coerceTypes: false,
  useDefaults: false,
  verbose: true,
});
addFormats(ajv, ['uri', 'email']);
// RFC 3339 dates may name year 0000, which PostgreSQL's date and timestamptz reject ("date/time
// field value out of range"): such a value must be a 400 here, not a 500 at insert time.
for (const name of ['date', 'date-time'] as const) {
  const { validate, compare } = fullFormats[name] as { validate: (s: string) => boolean; compare: (a: string, b: string) => number | undefined };
  ajv.addFormat(name, { type: 'string', validate: (s: string) => !s.startsWith('0000') && validate(s), compare });
}

/** A JSON Schema object (kept loose: schemas are plain data shared with OpenAPI). */
export type JsonSchema = Record<string, unknown>;

function paramOf(e: ErrorObject, root: string): string {
  const segments = e.instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (e.keyword === 'required') segments.push(String(e.params.missingProperty));
  if (e.keyword === 'additionalProperties') segments.push(String(e.params.additionalProperty));
  const path = segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
  return path || root;
}

/** The fields of a rule between fields: `not: {required}` (not both) or `oneOf` of single `required`s (exactly one). */
function fieldRule(e: ErrorObject): { kind: 'notBoth' | 'exactlyOne'; fields: string[] } | undefined {
  if (e.keyword === 'not') {
    const fields = (e.schema as { required?: string[] } | undefined)?.required;
    return fields && fields.length > 1 ? { kind: 'notBoth', fields } : undefined;
  }
  if (e.keyword === 'oneOf' && Array.isArray(e.schema)) {
    const fields = (e.schema as Array<{ required?: string[] }>).map((s) => (s.required?.length === 1 ? s.required[0] : undefined));
    return fields.every((f): f is string => f !== undefined) ? { kind: 'exactlyOne', fields } : undefined;
  }
  return undefined;
}

/** The error of a rule between fields, placed at the object the fields belong to. */
function ruleError(e: ErrorObject, rule: { kind: 'notBoth' | 'exactlyOne'; fields: string[] }, root: string): FieldError {
  const at = paramOf({ ...e, keyword: 'rule' }, '');
  const name = (f: string) => (at ? `${at}.${f}` : f);
  if (rule.kind === 'notBoth') {
    const last = rule.fields[rule.fields.length - 1]!;
    const others = rule.fields.slice(0, -1).map(name).join(', ');
    return { param: name(last), message: `${name(last)} cannot be given with ${others}` };
  }
  const list = rule.fields.map(name);
  return { param: list[0] ?? root, message: `give exactly one of ${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}` };
}

function messageOf(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a recognised field';
    case 'enum':
      return `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
    default:
      return e.message ?? 'is invalid';
  }
}

/**
 * Compiles `schema` once and returns a checker that throws `validation_failed` (400).
 * @param root name used as `param` when the value itself (not a field) is wrong, e.g. `body`
 */
export function validator<T>(schema: JsonSchema, root = 'body'): (value: unknown) => T {
  const validate: ValidateFunction = ajv.compile(schema);
  return (value) => {
    if (validate(value)) return value as T;
    const seen = new Set<string>();
    const errors: FieldError[] = [];
    const all = validate.errors ?? [];
    for (const e of all) {
      const rule = fieldRule(e);
      // A rule's own `required` failures (none of exactly-one given) are said once, by the rule.
      if (e.keyword === 'required' && all.some((r) => fieldRule(r)?.kind === 'exactlyOne' && e.schemaPath.startsWith(r.schemaPath))) continue;
      if (rule) {
        const error = ruleError(e, rule, root);
        if (!seen.has(error.message)) errors.push(error);
        seen.add(error.message);
        continue;
      }
      // anyOf/oneOf/if add summary errors after the concrete ones; the concrete ones are enough.
      if (['anyOf', 'oneOf', 'if'].includes(e.keyword) && errors.length) continue;
      const param = paramOf(e, root);
      const message = `${param} ${messageOf(e)}`;
      // One problem per field: a value both too long and off its pattern is said once.
      if (seen.has(message) || errors.some((f) => f.param === param)) continue;
      seen.add(message);
      errors.push({ param, message });
    }
    const first = errors[0] ?? { param: root, message: `${root} is invalid` };
    throw new ApiError('validation_failed', first.message, { param: first.param, errors });
  };
}
