/**
 * Request validation with Ajv against JSON Schemas (draft 2020-12). The same schemas feed the
 * OpenAPI document, so what is documented is what is enforced. Every failure becomes one 400
 * `validation_failed` naming the first field in `param` and all of them in `errors`.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { ApiError, type FieldError } from '@dms/errors';

// ajv-formats is CommonJS: under NodeNext its plugin is `module.exports`, typed as `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020, formats: string[]) => void;

/** The shared Ajv instance: all errors, no coercion, no defaults injected into bodies. */
export const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, coerceTypes: false, useDefaults: false });
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
    for (const e of validate.errors ?? []) {
      // anyOf/oneOf/if add summary errors after the concrete ones; the concrete ones are enough.
      if (['anyOf', 'oneOf', 'if'].includes(e.keyword) && errors.length) continue;
      const param = paramOf(e, root);
      const message = `${param} ${messageOf(e)}`;
      if (seen.has(message)) continue;
      seen.add(message);
      errors.push({ param, message });
    }
    const first = errors[0] ?? { param: root, message: `${root} is invalid` };
    throw new ApiError('validation_failed', first.message, { param: first.param, errors });
  };
}
