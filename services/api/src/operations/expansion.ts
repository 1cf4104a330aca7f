/**
 * `expand[]` (docs/api.md sections 10 and 15): related objects embedded in place of their ids, or
 * added as lists, and relations of those (`debt.customer`), at most `MAX_EXPAND_DEPTH` levels. A
 * resource declares its expansions as a registry, relation name → batch loader (and the registry of
 * what it loads); adding a relation is one entry. Objects are expanded a page at a time with one
 * query per expanded relation and level (`WHERE … IN (the page's keys)`), never one per object.
 * The accepted values come from the registry too (`expandQuery`, `checkExpandPaths`), so an
 * unknown one at any level is 400 `parameter_invalid` on `expand[]`, before the operation runs.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { tenantRows, type AnyResource } from '@dms/domain/kernel';
import { EXPAND_PARAM, expandProperty } from './query.js';

/** How many relations one `expand[]` value may chain (`a.b.c.d`). */
export const MAX_EXPAND_DEPTH = 4;
import type { OperationInput } from './operation.js';

/** One relation: which key of an object it follows, and how a page of keys is loaded. */
export interface Relation<Obj> {
  /**
   * The related objects' key in `obj`: the id it references (to-one), or its own id (to-many).
   * `null` (an optional reference that is not set) expands to `null` and is never queried.
   */
  key: (obj: Obj) => string | null;
  /**
   * Loads the related objects of `keys` (distinct, non-empty) with one query.
   * @returns them by key (an object, or an array of objects for a to-many relation)
   */
  load: (db: Knex, tenantId: string, keys: string[]) => Promise<Map<string, unknown>>;
  /** Shown when nothing was loaded for a key: `[]` for lists, a deleted stub for a deleted object. */
  missing?: (key: string) => unknown;
  /**
   * The object type of the loaded objects (`customer`, `debt`, …), whose declared expansions
   * (`declareExpansions`) serve `expand[]=<this>.<that>`. A name, not the registry itself, so
   * resources never import each other's registries and no import circle forms.
   */
  expands?: string;
}

/** A resource's expansions: relation name (the property it fills) → relation. */
export type ExpansionRegistry<Obj> = Readonly<Record<string, Relation<Obj>>>;

/** Declared registries by object type; filled as each resource's expansion module loads. */
const DECLARED = new Map<string, ExpansionRegistry<never>>();

/**
 * Declares what objects of `objectType` expand, once per resource (its `expansion.ts`); relations of
 * other resources name this type in `expands` to reach it.
 * @returns `registry`, unchanged
 * @throws Error when `objectType` is declared twice (a programming error, at start-up)
 */
export function declareExpansions<R extends ExpansionRegistry<never>>(objectType: string, registry: R): R {
  if (DECLARED.has(objectType)) throw new Error(`Expansions of ${objectType} are declared twice.`);
  DECLARED.set(objectType, registry);
  return registry;
}

/**
 * The declared registry of `objectType`, or none for a relation that expands no further.
 * @throws Error when the type's expansion module was never loaded (a programming error)
 */
function declaredExpansions(objectType: string | undefined): ExpansionRegistry<never> | undefined {
  if (objectType === undefined) return undefined;
  const registry = DECLARED.get(objectType);
  if (!registry) throw new Error(`No expansions are declared for ${objectType}: load its resource's expansion module.`);
  return registry;
}

/**
 * Checks `expand[]` values against `registry`: each a chain of at most `MAX_EXPAND_DEPTH` relation
 * names joined by `.`, every name a relation of the objects the previous one loads.
 * @throws ApiError 400 `parameter_invalid` with `param: 'expand[]'` naming the value and level
 */
export function checkExpandPaths(registry: ExpansionRegistry<never>, paths: readonly string[]): void {
  for (const path of paths) {
    const names = path.split('.');
    if (names.length > MAX_EXPAND_DEPTH) {
      throw new ApiError('parameter_invalid', `expand[] "${path}" nests ${names.length} levels; at most ${MAX_EXPAND_DEPTH} are allowed.`, {
        param: EXPAND_PARAM,
      });
    }
    let at: ExpansionRegistry<never> | undefined = registry;
    names.forEach((name, level) => {
      const relation: Relation<never> | undefined = at && Object.hasOwn(at, name) ? at[name] : undefined;
      if (!relation) {
        const known = Object.keys(at ?? {});
        const where = level === 0 ? '' : ` of ${names.slice(0, level).join('.')}`;
        throw new ApiError('parameter_invalid', `expand[] "${path}": ${name} is not a relation${where} (known: ${known.join(', ') || 'none'}).`, {
          param: EXPAND_PARAM,
        });
      }
      at = declaredExpansions(relation.expands);
    });
  }
}

/** `{"expand[]": …}` accepting the registry's relation names and chains of them, for an operation's query schema. */
export function expandQuery<Obj>(registry: ExpansionRegistry<Obj>) {
  const check = (paths: readonly string[]) => checkExpandPaths(registry, paths);
  return { [EXPAND_PARAM]: expandProperty(Object.keys(registry), check) };
}

/** The objects a relation embedded (the values of `found`, lists flattened), each once. */
function embedded(found: Map<string, unknown>): object[] {
  const out = new Set<object>();
  for (const value of found.values()) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== null && typeof item === 'object' && !('deleted' in item)) out.add(item);
  }
  return [...out];
}

/**
 * Embeds the requested relations into `objects` (each gets the property named by the relation),
 * then the relations of those (`debt.customer`), one query per relation and level for all of them.
 * @param expand validated `expand[]` values of `registry` (`checkExpandPaths`; absent or empty: objects unchanged)
 * @returns the same objects, in the same order
 */
export async function expandObjects<Obj extends object>(
  db: Knex,
  tenantId: string,
  // The registry decides the type: objects come in with ids and leave with what expanded.
  objects: NoInfer<Obj>[],
  expand: readonly string[] | undefined,
  registry: ExpansionRegistry<Obj>,
): Promise<Obj[]> {
  if (!expand?.length || !objects.length) return objects;
  const deeper = new Map<string, string[]>();
  for (const path of expand) {
    const [name, ...rest] = path.split('.') as [string, ...string[]];
    const list = deeper.get(name) ?? [];
    if (rest.length) list.push(rest.join('.'));
    deeper.set(name, list);
  }
  const loaded = await Promise.all(
    [...deeper].map(async ([name, rest]) => {
      const relation = registry[name]!;
      const keys = [...new Set(objects.map(relation.key))].filter((k): k is string => k !== null);
      const found = keys.length ? await relation.load(db, tenantId, keys) : new Map<string, unknown>();
      const next = rest.length ? declaredExpansions(relation.expands) : undefined;
      if (next) await expandObjects(db, tenantId, embedded(found), rest, next as ExpansionRegistry<object>);
      return { name, relation, found };
    }),
  );
  for (const obj of objects) {
    for (const { name, relation, found } of loaded) {
      const key = relation.key(obj);
      (obj as Record<string, unknown>)[name] = key === null ? null : found.has(key) ? found.get(key) : relation.missing?.(key);
    }
  }
  return objects;
}

/** The `expand[]` of a request's validated query. */
export function requestedExpansions(input: OperationInput<unknown, unknown, unknown>): string[] | undefined {
  return (input.query as Record<string, string[] | undefined> | undefined)?.[EXPAND_PARAM];
}

/**
 * An operation helper: expands objects with the request's `expand[]`.
 * @returns a function from objects (a page, or one object) to the expanded objects
 */
export function expanderFor<Obj extends object>(registry: ExpansionRegistry<Obj>, input: OperationInput<unknown, unknown, unknown>) {
  return (objects: Obj[]) => expandObjects(input.ctx.db, input.tenantId, objects, requestedExpansions(input), registry);
}

/** Expands one object (a retrieve, create or update) with the request's `expand[]`. */
export async function expandOne<Obj extends object>(
  registry: ExpansionRegistry<Obj>,
  input: OperationInput<unknown, unknown, unknown>,
  object: Obj,
): Promise<Obj> {
  return (await expanderFor(registry, input)([object]))[0]!;
}

/**
 * How a resource's objects are shown (docs/api.md section 10): rows mapped to public objects a page
 * at a time, then expanded with the request's `expand[]` from the resource's relations. One place
 * for what every operations table needs: the query property, a page serializer, one object.
 * @param toObjects rows → public objects, in order (one query at most for the whole page)
 */
export function presenter<Row, Obj extends object>(
  toObjects: (rows: Row[], input: OperationInput<unknown, unknown, unknown>) => Obj[] | Promise<Obj[]>,
  registry: ExpansionRegistry<Obj> = {},
) {
  const page = (input: OperationInput<unknown, unknown, unknown>) => async (rows: Row[]) =>
    expandObjects(input.ctx.db, input.tenantId, await toObjects(rows, input), requestedExpansions(input), registry);
  return {
    /** `{"expand[]": …}` of the operations' query schemas (empty when nothing expands). */
    expand: expandQuery(registry),
    /** A page's rows → expanded objects (for `listPage`/`searchPage`). */
    page,
    /** One row → its expanded object (for `retrieveOne`). */
    row: (input: OperationInput<unknown, unknown, unknown>) => async (row: Row) => (await page(input)([row]))[0]!,
    /** Expands one object a write returned. */
    one: async (input: OperationInput<unknown, unknown, unknown>, object: Obj | Promise<Obj>) => expandOne(registry, input, await object),
  };
}

/**
 * Groups rows by a key, in row order, mapping each (for to-many relations).
 * @returns key → mapped rows
 */
export function groupRows<Row, Out>(rows: Row[], keyOf: (row: Row) => string, map: (row: Row) => Out): Map<string, Out[]> {
  const out = new Map<string, Out[]>();
  for (const row of rows) {
    const k = keyOf(row);
    const list = out.get(k);
    if (list) list.push(map(row));
    else out.set(k, [map(row)]);
  }
  return out;
}

/** Indexes rows by id, mapping each (for to-one relations). */
export function byId<Row extends { id: string }, Out>(rows: Row[], map: (row: Row) => Out): Map<string, Out> {
  return new Map(rows.map((r) => [r.id, map(r)]));
}

/** How the rows of a relation are read: extra columns (e.g. embedded lists), and the order of a list. */
export interface RowQuery {
  /** Replaces the selected columns of the query (default `table.*`). */
  select?: (db: Knex, q: Knex.QueryBuilder) => void;
  /** Order of a to-many list by insertion (`seq`): `desc` (newest first, the default) or `asc`. */
  order?: 'asc' | 'desc';
}

/**
 * A to-one relation: the tenant's visible row of `resource` whose id is `key(obj)`.
 * @param map row → the embedded object
 * @param missing shown when the row is not visible (e.g. a deleted stub); default undefined
 */
export function referencedRow<Obj, Row extends { id: string }>(
  resource: AnyResource,
  key: (obj: Obj) => string | null,
  map: (row: Row) => unknown,
  options: RowQuery & Pick<Relation<Obj>, 'missing' | 'expands'> = {},
): Relation<Obj> {
  return {
    key,
    load: async (db, tenantId, ids) => {
      const q = tenantRows(db, resource, tenantId).whereIn(`${resource.table}.id`, ids);
      options.select?.(db, q);
      return byId((await q) as Row[], map);
    },
    ...(options.missing ? { missing: options.missing } : {}),
    ...(options.expands ? { expands: options.expands } : {}),
  };
}

/**
 * A to-many relation: the tenant's visible rows of `resource` whose `column` holds the object's id,
 * as a list (`[]` when none), ordered by insertion.
 * @param map row → the embedded object
 */
export function referencingRows<Obj extends { id: string }, Row>(
  resource: AnyResource,
  column: string,
  map: (row: Row) => unknown,
  options: RowQuery & Pick<Relation<Obj>, 'expands'> = {},
): Relation<Obj> {
  return {
    key: (obj) => obj.id,
    load: async (db, tenantId, ids) => {
      const { table } = resource;
      const q = tenantRows(db, resource, tenantId)
        .whereIn(`${table}.${column}`, ids)
        .orderBy(`${table}.seq`, options.order ?? 'desc');
      options.select?.(db, q);
      return groupRows((await q) as Row[], (r) => (r as Record<string, string>)[column]!, map);
    },
    missing: () => [],
    ...(options.expands ? { expands: options.expands } : {}),
  };
}
