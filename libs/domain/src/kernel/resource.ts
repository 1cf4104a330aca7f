/**
 * A resource as the domain declares it, once, in `<resource>/resource.ts` (docs/api.md section 3):
 * its table, the prefix of its ids, the `object` name of its public form, the events it records,
 * the OAuth scopes it introduces, which of its rows the API shows, and its searchable fields. The
 * scoped finder, the write skeleton and the outbox take a declaration instead of a table name, and
 * the central lists (id prefixes, tenant-scoped tables, event types, scopes) are built from all of
 * them in `registry.ts`, so adding a resource is its own folder plus one line there.
 */
import type { Knex } from '@dms/db';
import type { SearchRegistry } from '@dms/search';

/** One resource; all but `tenants` are owned by a tenant. */
export interface Resource<Table extends string = string, Prefix extends string = string, Event extends string = string> {
  /** `object` of the public form, e.g. `debt`. */
  readonly object: string;
  /** How messages name one of them, e.g. `debt` in "No such debt: 'deb_…'". */
  readonly noun: string;
  /** Its table; every row carries `tenant_id`. */
  readonly table: Table;
  /** Prefix of its ids (`deb` → `deb_` + 24 base62 characters). */
  readonly idPrefix: Prefix;
  /** Event types it records through the outbox (docs/api.md section 7). */
  readonly events: readonly Event[];
  /** OAuth 2.0 scopes this resource introduces (docs/api.md section 2); most share their parent's. */
  readonly scopes?: readonly string[];
  /** Narrows a query to the rows the API shows (soft-deleted rows stay stored but hidden). */
  readonly visible?: (q: Knex.QueryBuilder) => void;
  /** Fields of its search endpoint (docs/api.md sections 4 and 10), if it has one. */
  readonly search?: SearchRegistry;
  /** False for the one table that is not owned by a tenant: `tenants` itself. Default true. */
  readonly tenantScoped?: boolean;
}

/** Any declaration, its literal types erased. */
export type AnyResource = Resource<string, string, string>;

/** The event types a declaration records. */
export type EventOf<R extends AnyResource> = R['events'][number];

/**
 * Declares a resource, keeping its literal types (table, prefix, event names) for the functions
 * that take it.
 */
export function defineResource<const R extends AnyResource>(resource: R): R {
  return resource;
}
