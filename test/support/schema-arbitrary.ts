/**
 * fast-check arbitraries from the JSON Schemas of the OpenAPI document, for the property test of
 * the API against its own document (test/openapi/property.test.ts). Values are mostly valid, and
 * on purpose often just valid or just invalid at a bound: strings of `maxLength` and one more,
 * integers at `minimum`/`maximum` and one past, arrays of `maxItems` and one more, a missing
 * required field or an unknown one now and then. Every answer must then be documented.
 */
import fc from 'fast-check';

type Json = Record<string, any>;

/** What the arbitraries need: `$ref`s resolved, and real ids for id patterns (by prefix). */
export interface SchemaContext {
  resolve: (s: Json) => Json;
  idFor: (prefix: string) => string | undefined;
}

/** Resolves `#/…` references of `doc`. */
export function resolver(doc: Json): (s: Json) => Json {
  const resolve = (s: Json): Json => {
    if (!s?.$ref) return s;
    const target = (s.$ref as string)
      .slice(2)
      .split('/')
      .reduce((n: Json, k) => n[k.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
    return resolve(target);
  };
  return resolve;
}

const iso = (d: Date) => d.toISOString();
const dates = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true });

/** Mostly `valid`, sometimes `invalid` (one in `1 + weight`). */
const mostly = <T>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<T>, weight = 6) => fc.oneof({ arbitrary: valid, weight }, { arbitrary: invalid, weight: 1 });

function stringArb(s: Json, ctx: SchemaContext): fc.Arbitrary<string> {
  const max: number | undefined = s.maxLength;
  const min: number = s.minLength ?? 0;
  if (s.format === 'date-time') return mostly(dates.map(iso), fc.constant('2026-13-01T00:00:00Z'));
  if (s.format === 'date')
    return mostly(
      dates.map((d) => iso(d).slice(0, 10)),
      fc.constant('2026-02-30'),
    );
  if (s.format === 'email') return mostly(fc.constantFrom('ada@example.com', 'grace.hopper@example.org'), fc.constant('not-an-email'));
  if (s.format === 'uri') return mostly(fc.constant('https://93.184.216.34/hook'), fc.constantFrom('https://93.184.216.34:0/hook', 'ftp://x', 'not a url'));
  const id = /^\^([a-z]{2,4})_\[0-9A-Za-z\]\{24\}\$$/.exec(s.pattern ?? '')?.[1];
  const real = id ? ctx.idFor(id) : undefined;
  if (id) return mostly(fc.constant(real ?? `${id}_000000000000000000000000`), fc.constant(`${id}_000000000000000000000000`));
  const within = s.pattern
    ? fc.stringMatching(new RegExp(s.pattern as string)).filter((v) => v.length >= min && (max === undefined || v.length <= max))
    : fc.string({ minLength: min, maxLength: Math.min(max ?? 30, 30) });
  const bounds = max === undefined ? [] : [fc.constant('x'.repeat(max)), fc.constant('x'.repeat(max + 1))];
  return bounds.length ? mostly(within, fc.oneof(...bounds), 10) : within;
}

function integerArb(s: Json): fc.Arbitrary<number> {
  const min: number = s.minimum ?? -1_000_000;
  const max: number = s.maximum ?? 1_000_000;
  return mostly(fc.oneof(fc.integer({ min, max: Math.min(max, min + 10_000_000) }), fc.constantFrom(min, max)), fc.constantFrom(min - 1, max + 1), 8);
}

/**
 * An arbitrary of values for `schema` (with `$ref`s of the document resolved by `resolve`).
 * `depth` bounds nesting (expanded objects refer to each other).
 */
export function arbitraryOf(schema: Json, ctx: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  const s = ctx.resolve(schema);
  if (depth > 5) return fc.constant(null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]));
  const alternatives = (s.oneOf ?? s.anyOf) as Json[] | undefined;
  if (alternatives && !s.type && !s.properties) return fc.oneof(...alternatives.map((a) => arbitraryOf(a, ctx, depth + 1)));
  if (s.allOf && !s.type && !s.properties) return arbitraryOf(s.allOf[0] as Json, ctx, depth + 1);
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : ['object'];
  return fc.oneof(...types.map((t) => typed(t, s, ctx, depth)));
}

function typed(type: string, s: Json, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'string':
      return stringArb(s, ctx);
    case 'integer':
      return integerArb(s);
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
    case 'array': {
      const item = arbitraryOf(s.items ?? {}, ctx, depth + 1);
      const max = Math.min(s.maxItems ?? 3, 3);
      const within = fc.array(item, { minLength: Math.min(s.minItems ?? 0, max), maxLength: max });
      return s.maxItems === undefined ? within : mostly(within, fc.array(item, { minLength: s.maxItems + 1, maxLength: s.maxItems + 1 }));
    }
    default:
      return objectArb(s, ctx, depth);
  }
}

function objectArb(s: Json, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const properties = (s.properties ?? {}) as Record<string, Json>;
  const required = new Set((s.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (!names.length) {
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 40 }), arbitraryOf(s.additionalProperties as Json, ctx, depth + 1), { maxKeys: 3 });
    }
    return fc.constant({});
  }
  const record = fc.record(Object.fromEntries(names.map((n) => [n, arbitraryOf(properties[n]!, ctx, depth + 1)])), {
    requiredKeys: names.filter((n) => required.has(n)),
  });
  // Now and then a required field left out, or a field the schema does not have.
  return fc.oneof(
    { arbitrary: record, weight: 12 },
    record.map((v) => ({ ...(v as Json), not_a_field: 1 })),
    record.map((v) => {
      const copy = { ...(v as Json) };
      delete copy[[...required][0] ?? ''];
      return copy;
    }),
  );
}
