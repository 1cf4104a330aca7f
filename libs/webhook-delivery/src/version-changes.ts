/**
 * The versions table (docs/api.md section 15), Stripe's mechanism for dated versions: the code
 * builds every object in the newest shape, and each entry here is one small change a version made,
 * with the transform that turns an object of that version's shape back into the shape of the
 * version before it. An answer (or a delivery) for an older version is the newest shape with the
 * transforms of every newer version applied, newest first. Adding a version is adding its entries.
 */

type Json = Record<string, unknown>;

/** What a transform may need to know of the request it answers. */
export interface DowngradeContext {
  /** True for an object the response is about (an answer's object, a list's items, an event's object), not one embedded in it. */
  top: boolean;
  /** Relations of top-level objects loaded only because an older version shows them (see `relationIds`), not asked for by `expand[]`. */
  implied: ReadonlySet<string>;
}

/** One change a version made, and how to undo it for clients of the version before. */
export interface VersionChange {
  /** The version (`YYYY-MM-DD`) that introduced the change. */
  version: string;
  /** What changed, as the reference's versions table says it. */
  description: string;
  /** Object type (`object` field) → the transform of one such object to the previous version's shape. */
  objects: Readonly<Record<string, (obj: Json, ctx: DowngradeContext) => Json>>;
  /** Object type → relations the previous version shows as lists of ids: the API loads them for such answers. */
  relationIds?: Readonly<Record<string, readonly string[]>>;
  /**
   * Object type → the same change on the object's JSON Schema (the OpenAPI document describes each
   * version's shape with it, `downgradeSchema`); `top` as for `objects`.
   */
  schemas: Readonly<Record<string, (schema: Json, ctx: { top: boolean }) => Json>>;
}

const DEBT_LISTS = ['invoices', 'line_items', 'payments', 'payment_plans'] as const;

const idOf = (v: unknown): unknown => (v !== null && typeof v === 'object' && 'id' in v ? v.id : v);

/** `schema`'s properties and `required` with each key renamed by `rename` (order kept), values by `retype`. */
function renameProperties(schema: Json, rename: (key: string) => string, retype: (key: string, value: unknown) => unknown): Json {
  const properties = Object.fromEntries(Object.entries((schema.properties ?? {}) as Json).map(([k, v]) => [rename(k), retype(k, v)]));
  return { ...schema, properties, ...(Array.isArray(schema.required) ? { required: (schema.required as string[]).map(rename) } : {}) };
}

/** Every change, newest version first. */
export const VERSION_CHANGES: readonly VersionChange[] = [
  {
    version: '2026-11-01',
    description:
      'A debt shows its `invoices`, `line_items`, `payments` and `payment_plans` only when expanded (before: always, as arrays of ids unless expanded).',
    relationIds: { debt: DEBT_LISTS },
    objects: {
      debt: (debt, ctx) => {
        if (!ctx.top) return debt;
        const out: Json = { ...debt };
        for (const name of DEBT_LISTS) if (ctx.implied.has(name) && Array.isArray(out[name])) out[name] = (out[name] as unknown[]).map(idOf);
        return out;
      },
    },
    schemas: {
      // An answer's debts show the lists, each item an id unless expanded.
      debt: (schema, { top }) => {
        if (!top) return schema;
        const lists = new Set<string>(DEBT_LISTS);
        return renameProperties(
          schema,
          (k) => k,
          (k, v) => (lists.has(k) ? { ...(v as Json), items: { anyOf: [{ type: 'string', description: 'The id, unless expanded.' }, (v as Json).items] } } : v),
        );
      },
    },
  },
  {
    version: '2026-11-01',
    description: 'A line item names its debt and invoice `debt` and `invoice` (before: `debt_id` and `invoice_id`).',
    objects: {
      // The ids take the places the references had, keeping the field order.
      line_item: (item) => Object.fromEntries(Object.entries(item).map(([k, v]) => (k === 'debt' || k === 'invoice' ? [`${k}_id`, idOf(v ?? null)] : [k, v]))),
    },
    schemas: {
      line_item: (schema) =>
        renameProperties(
          schema,
          (k) => (k === 'debt' || k === 'invoice' ? `${k}_id` : k),
          (k, v) =>
            k === 'debt'
              ? { type: 'string', description: 'Id of the debt.' }
              : k === 'invoice'
                ? { type: ['string', 'null'], description: 'Id of the invoice.' }
                : v,
        ),
    },
  },
  {
    version: '2026-11-01',
    description: 'A webhook endpoint is `object: "webhook_endpoint"` (before: `"webhook"`).',
    objects: { webhook_endpoint: (endpoint) => ({ ...endpoint, object: 'webhook' }) },
    schemas: {
      webhook_endpoint: (schema) =>
        renameProperties(
          schema,
          (k) => k,
          (k, v) => (k === 'object' ? { type: 'string', const: 'webhook' } : v),
        ),
    },
  },
  {
    version: '2026-11-01',
    description:
      'An event is `{id, object, type, api_version, created_at, data: {object}}` (before: `{id, object, type, created_at, livemode, data: <the object itself>}`).',
    objects: {
      event: ({ id, object, type, created_at, livemode, data }) => ({
        id,
        object,
        type,
        created_at,
        // Every event was live before test mode existed: one without the field is live.
        livemode: livemode ?? true,
        data: (data as { object?: unknown } | undefined)?.object ?? null,
      }),
    },
    schemas: {
      event: (schema) => {
        const p = schema.properties as Json;
        const object = ((p.data as Json).properties as Json).object;
        return {
          ...schema,
          required: ['id', 'object', 'type', 'created_at', 'livemode', 'data'],
          properties: { id: p.id, object: p.object, type: p.type, created_at: p.created_at, livemode: { type: 'boolean' }, data: object },
        };
      },
    },
  },
];

/** The changes between `version` and the newest, newest first: what turns the newest shape into `version`'s. */
export function changesSince(version: string): VersionChange[] {
  return VERSION_CHANGES.filter((c) => c.version > version);
}

/**
 * Relations of an object of type `object` that `version` shows as lists of ids: loaded for its
 * answers (then collapsed to ids by the transform unless `expand[]` asked for them).
 */
export function impliedRelations(object: string, version: string): string[] {
  return [...new Set(changesSince(version).flatMap((c) => c.relationIds?.[object] ?? []))];
}

/**
 * `value` (an answer, a list body, an event) in the shape of `version`: every object in it
 * (embedded ones included, innermost first) passed through the transforms of the newer versions.
 * Each object comes with its `livemode` (the API writes it on every object first): a transform
 * keeps it, as every object of every version shows it (docs/api.md section 15).
 * @returns `value` itself when `version` is the newest
 */
export function downgrade(value: unknown, version: string, implied: ReadonlySet<string> = new Set()): unknown {
  const changes = changesSince(version);
  if (!changes.length) return value;
  const walk = (v: unknown, top: boolean): unknown => {
    if (Array.isArray(v)) return v.map((item) => walk(item, top));
    if (v === null || typeof v !== 'object') return v;
    const obj = v as Json;
    // A list body's items and an event's object (`data`, `data.object`) are what the answer is about.
    const passes = typeof obj.object !== 'string' || obj.object === 'list' || obj.object === 'event';
    let out: Json = Object.fromEntries(Object.entries(obj).map(([k, child]) => [k, walk(child, top && passes && (k === 'data' || k === 'object'))]));
    for (const change of changes) {
      const transform = typeof out.object === 'string' ? change.objects[out.object] : undefined;
      if (transform) out = transform(out, { top, implied });
    }
    return out;
  };
  return walk(value, true);
}

/**
 * A JSON Schema of the newest shape (an answer's body, as the OpenAPI document states it) turned
 * into `version`'s, by the same changes as `downgrade`: every object schema with an `object` const
 * (embedded ones included, innermost first) passed through the changes' `schemas`. The root, a
 * list's `data` items and an event's `data` are `top`, as in `downgrade`.
 * @returns `schema` itself when `version` is the newest
 */
export function downgradeSchema(schema: Json, version: string): Json {
  const changes = changesSince(version);
  if (!changes.length) return schema;
  const walk = (node: unknown, top: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, top));
    if (node === null || typeof node !== 'object') return node;
    const s = node as Json;
    const kind = ((s.properties as Json | undefined)?.object as Json | undefined)?.const;
    const passes = kind === undefined || kind === 'list' || kind === 'event';
    let out: Json = Object.fromEntries(
      Object.entries(s).map(([k, child]) => {
        if (k === 'properties')
          return [
            k,
            Object.fromEntries(Object.entries(child as Json).map(([name, sub]) => [name, walk(sub, top && passes && (name === 'data' || name === 'object'))])),
          ];
        return [k, ['items', 'anyOf', 'oneOf', 'allOf'].includes(k) ? walk(child, top) : child];
      }),
    );
    for (const change of changes) {
      const transform = typeof kind === 'string' ? change.schemas[kind] : undefined;
      if (transform) out = transform(out, { top });
    }
    return out;
  };
  return walk(schema, true) as Json;
}
