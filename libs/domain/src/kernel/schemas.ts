/**
 * Schema pieces shared by every resource (docs/api.md section 3): metadata, currency, money,
 * identifiers, timestamps, free text, enums and nullables, as TypeBox schemas. Each value is a plain
 * JSON Schema (2020-12) that Ajv validates with and OpenAPI publishes, and carries its TypeScript
 * type (`Static<typeof x>`), so types are derived from the schemas instead of written beside them.
 *
 * Enums and nullables are built with `Type.Unsafe` on purpose: they keep the compact JSON Schema
 * forms (`enum`, `type: [T, "null"]`) whose validation errors name the field directly, where
 * TypeBox's unions would produce `anyOf` errors.
 */
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { idPattern, type IdPrefix } from '@dms/ids';

export { Type, type Static, type TSchema };

/** ISO 4217 currencies the platform accepts. */
export const CURRENCIES = ['GBP', 'EUR', 'USD'] as const;

/** A string enum: `{type:"string", enum:[…]}`, typed as the union of its values. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** `schema` or null: `type: [T, "null"]` (and `null` added to an `enum`). */
export function Nullable<S extends TSchema>(schema: S, options: Record<string, unknown> = {}): TUnsafe<Static<S> | null> {
  const { type, enum: values, ...rest } = schema as TSchema & { type?: string; enum?: unknown[] };
  // A schema without `type` (a database column in a row schema) already admits null.
  const nullable = type === undefined ? {} : { type: [type, 'null'] };
  return Type.Unsafe<Static<S> | null>({ ...rest, ...nullable, ...(values ? { enum: [...values, null] } : {}), ...options });
}

/** `metadata`: at most 50 string keys (≤ 40 chars) with string values (≤ 500 chars). */
export const metadataSchema = Type.Unsafe<Record<string, string>>({
  type: 'object',
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 40 },
  additionalProperties: { type: 'string', maxLength: 500 },
  description: 'Your own key-value data: at most 50 keys of up to 40 characters, string values up to 500 characters.',
});

/**
 * `metadata` of an update: the given keys are merged into the stored metadata, a key set to the
 * empty string is removed, keys not mentioned are kept (as Stripe does).
 */
export const metadataPatchSchema = Type.Unsafe<Record<string, string>>({
  ...metadataSchema,
  description:
    'Keys to merge into the stored metadata: each given key is set, a key set to "" is removed, keys not mentioned are kept. At most 50 keys after merging.',
});

/** A currency of {@link CURRENCIES}. */
export const currencySchema = StringEnum(CURRENCIES, { description: 'ISO 4217 currency code.' });

/** An amount in minor units (pence, cents); bounded so sums stay exact in JSON numbers. */
export function minorUnits(options: Record<string, unknown> = {}) {
  return Type.Integer({ minimum: 0, maximum: 100_000_000_000_000, description: 'Amount in minor units (e.g. pence).', ...options });
}

/** An identifier of `prefix` (`deb_` + 24 base62 characters): its length is stated as well as its pattern. */
export function idSchema(prefix: IdPrefix, description?: string) {
  return Type.String({ pattern: idPattern(prefix), maxLength: prefix.length + 25, ...(description ? { description } : {}) });
}

/**
 * Longest RFC 3339 date-time a request may carry: `2026-11-01T12:00:00.123456789+01:00` is 35
 * characters; nine fraction digits are as fine as PostgreSQL keeps (microseconds).
 */
export const TIMESTAMP_MAX_LENGTH = 35;

/** A timestamp given in a request (RFC 3339 section 5.6), at most {@link TIMESTAMP_MAX_LENGTH} characters. */
export function timestampSchema(description = 'RFC 3339 timestamp, UTC.') {
  return Type.String({ format: 'date-time', maxLength: TIMESTAMP_MAX_LENGTH, description });
}

/** A calendar date given in a request (RFC 3339 `full-date`, `2026-11-01`: 10 characters). */
export function dateSchema(description?: string) {
  return Type.String({ format: 'date', maxLength: 10, ...(description ? { description } : {}) });
}

/** `created_at` and `updated_at` of a stored resource in responses (RFC 3339, UTC); spread into `properties`. */
export const timestampProperties = {
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};

/** Short free text (names, references): 1 to `maxLength` characters. */
export function textSchema(maxLength = 200, description?: string) {
  return Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });
}

/** The `id` of a response object, with an example of its prefix. */
export function objectId(prefix: IdPrefix) {
  return Type.String({ examples: [`${prefix}_1a2B3c4D5e6F7g8H9i0JkLmN`] });
}

/** An update body: every field optional, unknown ones refused, at least one given. */
export function updateBody<P extends Record<string, TSchema>>(properties: P) {
  return Type.Partial(Type.Object(properties), { additionalProperties: false, minProperties: 1 });
}

/** `{"reason"}` body of lifecycle actions. */
export const reasonBodySchema = Type.Object(
  { reason: Type.Optional(textSchema(500, 'Why the action was taken; stored on the status.')) },
  { additionalProperties: false },
);

/** The answer to a successful `DELETE`, and what an expansion shows for a deleted object. */
export function deletedObjectSchema<T extends string>(object: T) {
  return Type.Object({ id: Type.String(), object: Type.Literal(object), deleted: Type.Literal(true) });
}

/** `{id, object, deleted: true}` for an object of type `T`. */
export interface DeletedObject<T extends string> {
  id: string;
  object: T;
  deleted: true;
}

/** Builds the deleted stub of `object` `id`. */
export function deletedObject<T extends string>(object: T, id: string): DeletedObject<T> {
  return { id, object, deleted: true };
}

/**
 * `2026-01-31T12:00:00.123Z` from PostgreSQL's text of a timestamptz in a UTC session with
 * DateStyle ISO, `2026-01-31 12:00:00.123456+00` (fraction of 0 to 6 digits, year 1000-9999), or
 * undefined for any other text. Plain slicing rather than a regular expression: this runs for
 * every timestamp of every page, and a match array per call was a tenth of a page's garbage.
 */
function fromUtcText(v: string): string | undefined {
  const n = v.length;
  // 19 characters of date and time, then `+00` (no fraction) or `.` + 1 to 6 digits + `+00`.
  if (n < 22 || n > 29 || n === 23 || v.charCodeAt(10) !== 32 || v.charCodeAt(0) === 48 || !v.endsWith('+00')) return undefined;
  const day = v.slice(0, 10);
  const time = v.slice(11, 19);
  if (n === 22) return `${day}T${time}.000Z`;
  if (v.charCodeAt(19) !== 46) return undefined;
  const fraction = v.slice(20, n - 3);
  return `${day}T${time}.${fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0')}Z`;
}

/**
 * Converts a database timestamp to RFC 3339 UTC with milliseconds, `YYYY-MM-DDTHH:MM:SS.mmmZ`, as
 * `Date.prototype.toISOString` writes it (`null` stays `null`). Accepts a `Date`, or the text
 * PostgreSQL sends for a timestamptz (lists read it as text, http/pagination.ts): in a UTC session
 * that text is rewritten without a Date (microseconds truncated to milliseconds, as node-postgres's
 * parsing does), any other text goes through `Date`.
 */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') {
    const text = fromUtcText(value);
    if (text !== undefined) return text;
  }
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** Columns every stored, tenant-owned row has; spread into a row schema. */
export const rowColumns = {
  id: Type.String(),
  tenant_id: Type.String(),
  created_at: Type.Unsafe<Date>({}),
  updated_at: Type.Unsafe<Date>({}),
};

/** A database timestamp column in a row schema (node-postgres returns `Date`). */
export const DateColumn = Type.Unsafe<Date>({});
