/**
 * The one list, search and retrieve logic every collection uses (docs/api.md section 4): tenant
 * scoping, keyset page, total, and serialization of the page's rows in one go (so expansions are
 * batched). Handlers return a PageResult; `mount` writes it with the pagination headers.
 */
import type { Knex } from '@dms/db';
import { findOwned, tenantRows, type AnyResource } from '@dms/domain/kernel';
import { compileSearch, countMatches, TOTAL_RELATION_HEADER } from '@dms/search';
import { keysetPage, listTotal, type PageParams, type PageResult } from '../http/pagination.js';
import type { OperationInput } from './operation.js';

/** Validated query of a list or search (see query.ts). */
type PagedQuery = { limit?: number; after?: string; before?: string; query?: string };
type Input = OperationInput<PagedQuery, unknown, unknown>;

/** What a collection declares to be listed. */
export interface ListSpec<Row, Out extends { id: string }> {
  resource: AnyResource;
  /** Narrows the tenant's rows, e.g. to a parent (`debt_id`). */
  narrow?: (q: Knex.QueryBuilder, input: Input) => void;
  /** Counter key of the list: `[list, parentId]` (O(1) totals, docs/api.md section 4). */
  counter: (input: Input) => [string, string?];
  /** Instead of the counter: the total the parent keeps itself (a payout's `item_count`), O(1) too. */
  total?: (input: Input) => Promise<number>;
  /** Serializes the page's rows (in one go, so expansions can be batched). */
  serialize: (rows: Row[], input: Input) => Promise<Out[]> | Out[];
}

/** What a collection declares to be searched: the rows and the serializer (the fields are its resource's `search`). */
export type SearchSpec<Row, Out extends { id: string }> = Omit<ListSpec<Row, Out>, 'counter'>;

function pageParams(query: PagedQuery): PageParams {
  return { limit: query.limit!, after: query.after, before: query.before };
}

/**
 * `GET /<collection>`: one keyset page of the tenant's visible rows and the list's maintained total;
 * with `query`, the page and total of `searchPage` instead.
 * @throws ApiError 400 `invalid_cursor` when a cursor is not an object of this list, `invalid_search_query`
 */
export async function listPage<Row, Out extends { id: string }>(input: Input, spec: ListSpec<Row, Out>): Promise<PageResult<Out>> {
  // A list given `query` answers as its search (docs/api.md section 15).
  if (input.query.query !== undefined) return searchPage(input, spec);
  const params = pageParams(input.query);
  const list = tenantRows(input.ctx.db, spec.resource, input.tenantId);
  spec.narrow?.(list, input);
  const [listName, parentId] = spec.counter(input);
  const [page, total] = await Promise.all([
    keysetPage<Row>(list, list, spec.resource.table, params),
    spec.total ? spec.total(input) : listTotal(input.ctx.db, input.tenantId, listName, parentId),
  ]);
  return { data: await spec.serialize(page.rows, input), total, page, params };
}

/**
 * `GET /<collection>/search`: the tenant's visible rows narrowed by the parsed `query`, paged by
 * the same keyset as lists; the total is the number of matches counted up to `SEARCH_TOTAL_CAP`,
 * with `X-Total-Count-Relation` (`eq`, or `gte` past the cap; @dms/search `countMatches`, docs/api.md section 4).
 * @throws ApiError 400 `invalid_search_query` (with the position), `invalid_cursor`
 */
export async function searchPage<Row, Out extends { id: string }>(input: Input, spec: SearchSpec<Row, Out>): Promise<PageResult<Out>> {
  const params = pageParams(input.query);
  const list = tenantRows(input.ctx.db, spec.resource, input.tenantId);
  spec.narrow?.(list, input);
  // Without `query` (a list that has no maintained counter): every row, counted the same way.
  const matches = input.query.query === undefined ? list.clone() : compileSearch(list.clone(), input.query.query, spec.resource.search ?? {});
  const [page, { total, relation }] = await Promise.all([
    keysetPage<Row>(list, matches, spec.resource.table, params),
    countMatches(input.ctx.db, matches, input.ctx.cfg.SEARCH_TOTAL_CAP),
  ]);
  const data = await spec.serialize(page.rows, input);
  input.res.set(TOTAL_RELATION_HEADER, relation);
  return { data, total, page, params };
}

/**
 * `GET /<collection>/{id}`: one visible row of the tenant, serialized.
 * @throws ApiError 404 `resource_missing` (unknown, hidden, or another tenant's)
 */
export async function retrieveOne<Row, Out>(
  input: OperationInput<unknown, unknown, { id: string }>,
  resource: AnyResource,
  serialize: (row: Row) => Promise<Out> | Out,
  id = input.params.id,
): Promise<Out> {
  return serialize(await findOwned<Row>(input.ctx.db, resource, input.tenantId, id));
}

/**
 * Operations of a collection nested under a parent object (`/debts/{debtId}/payments`): checks
 * that the path's parent is the tenant's and narrows a list to its children.
 * @param param the path parameter naming the parent, e.g. `debtId`
 * @param column the children's qualified column holding the parent id, e.g. `payments.debt_id`
 * @returns `(input) => {id, narrow}`
 * @throws (the returned function) ApiError 404 `resource_missing` for another tenant's or no parent
 */
export function nestedUnder<Param extends string>(parent: AnyResource, param: Param, column: string) {
  return async (input: OperationInput<unknown, unknown, { [K in Param]: string }>) => {
    const id = input.params[param];
    await findOwned(input.ctx.db, parent, input.tenantId, id);
    return { id, narrow: (q: Knex.QueryBuilder) => void q.where(column, id) };
  };
}
