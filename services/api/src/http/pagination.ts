/**
 * Keyset pagination of every list and search endpoint (docs/api.md section 4).
 *
 * Lists are ordered newest first by `seq`, an identity column that is indexed per tenant; a cursor
 * is an object id, resolved to its `seq` inside the same (tenant-scoped) list, so a page costs an
 * index range scan of `limit + 1` rows at any depth. The extra row tells whether more exist.
 *
 * - no cursor:   seq DESC                       -> the newest `limit`
 * - `after=X`:   seq < seq(X), DESC              -> the next older page
 * - `before=X`:  seq > seq(X), ASC, then reversed -> the `limit` objects just newer than X
 */
import type { Request, Response } from 'express';
import { TEXT_TIMESTAMPS, type Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { preparedQuery } from '../db/prepared.js';

/**
 * Tables whose rows a page hands to a mapper that writes every timestamp with `iso` (@dms/domain's kernel/schemas.ts):
 * their timestamps are read as text (TEXT_TIMESTAMPS), never parsed into a `Date` only to be
 * written back out. Other tables' mappers may compute with a `Date`; they get one.
 */
const TEXT_TIMESTAMP_TABLES: ReadonlySet<string> = new Set(['debts', 'payments', 'organisations', 'customers']);

/** Validated pagination parameters of a request. */
export interface PageParams {
  limit: number;
  after?: string;
  before?: string;
}

/** One page of rows plus whether objects exist on either side of it. */
export interface Page<Row> {
  rows: Row[];
  /** Newer objects exist (a `prev` link is due). */
  hasNewer: boolean;
  /** Older objects exist (a `next` link is due). */
  hasOlder: boolean;
}

/** A page ready to be written: its objects, the list's total, and where it lies in the list. */
export interface PageResult<T extends { id: string }> {
  data: T[];
  total: number;
  page: Page<unknown>;
  params: PageParams;
}

/** Names of the pagination parameters (kept out of the links' other parameters). */
export const PAGE_PARAM_NAMES = ['limit', 'after', 'before'] as const;
const PAGE_PARAMS: readonly string[] = PAGE_PARAM_NAMES;

/**
 * Fetches one page; its statements are prepared (db/prepared.ts).
 * @param list the whole list (tenant-, parent- and visibility-scoped); cursors must name one of its rows
 * @param rows the rows to page through: `list` itself (a plain list, whose page statement is
 *   prepared), or `list` narrowed by a search (sent unnamed: planned for its values each time)
 * @param table table name qualifying `seq` and `id`
 * @throws ApiError 400 `invalid_cursor` when the cursor is not an object of `list`
 */
export async function keysetPage<Row>(list: Knex.QueryBuilder, rows: Knex.QueryBuilder, table: string, page: PageParams): Promise<Page<Row>> {
  const cursorId = page.after ?? page.before;
  const param = page.after !== undefined ? 'after' : 'before';
  let cursorSeq: number | undefined;
  if (cursorId !== undefined) {
    const [found] = await preparedQuery<{ seq: number }>(
      list.clone().clearSelect().clearOrder().where(`${table}.id`, cursorId).select(`${table}.seq`).limit(1),
    );
    if (!found) throw new ApiError('invalid_cursor', `${param} does not name an object of this list.`, { param });
    cursorSeq = Number(found.seq);
  }
  const q = rows.clone().limit(page.limit + 1);
  const types = TEXT_TIMESTAMP_TABLES.has(table) ? TEXT_TIMESTAMPS : undefined;
  const named = rows === list;
  if (page.before !== undefined) {
    const fetched = await preparedQuery<Row>(q.where(`${table}.seq`, '>', cursorSeq!).orderBy(`${table}.seq`, 'asc'), types, named);
    const hasNewer = fetched.length > page.limit;
    return { rows: fetched.slice(0, page.limit).reverse(), hasNewer, hasOlder: true };
  }
  if (page.after !== undefined) q.where(`${table}.seq`, '<', cursorSeq!);
  const fetched = await preparedQuery<Row>(q.orderBy(`${table}.seq`, 'desc'), types, named);
  return { rows: fetched.slice(0, page.limit), hasNewer: page.after !== undefined, hasOlder: fetched.length > page.limit };
}

/**
 * The total of a plain list from its maintained counter (O(1), docs/api.md section 4): the sum of the
 * list's counter shards (at most 16 rows by primary key, migration 008_counter_shards).
 * @param parentId the parent object of a nested list (a debt's payments), '' for top-level lists
 */
export async function listTotal(db: Knex, tenantId: string, list: string, parentId = ''): Promise<number> {
  const [row] = await preparedQuery<{ total: unknown }>(db('list_counters').where({ tenant_id: tenantId, list, parent_id: parentId }).sum({ total: 'count' }));
  return Number(row?.total ?? 0);
}

function pageUrl(base: string, kept: URLSearchParams, set: Record<string, string>): string {
  const params = new URLSearchParams(kept);
  for (const [k, v] of Object.entries(set)) params.set(k, v);
  return `${base}?${params.toString()}`;
}

/**
 * Sets the headers of a list response: `X-Total-Count`, `X-Page-Items` and `Link` (RFC 8288) with
 * `first`, and `next`/`prev` when such pages exist. Query parameters other than the cursor and
 * limit are kept in the links. The body (`{"object":"list","data":[…]}`) is written by the caller.
 * @param publicBaseUrl absolute base of the API, e.g. `https://api.example.com`
 */
export function writePage<T extends { id: string }>(
  req: Request,
  res: Response,
  publicBaseUrl: string,
  result: { data: T[]; total: number; page: Page<unknown>; params: PageParams },
): void {
  const { data, total, page, params } = result;
  const original = new URL(req.originalUrl, 'http://x');
  const kept = new URLSearchParams([...original.searchParams].filter(([k]) => !PAGE_PARAMS.includes(k)));
  const base = `${publicBaseUrl}${original.pathname}`;
  const limit = String(params.limit);
  const links = [`<${pageUrl(base, kept, { limit })}>; rel="first"`];
  if (data.length && page.hasOlder) links.push(`<${pageUrl(base, kept, { after: data[data.length - 1]!.id, limit })}>; rel="next"`);
  if (data.length && page.hasNewer) links.push(`<${pageUrl(base, kept, { before: data[0]!.id, limit })}>; rel="prev"`);
  res.set({ 'X-Total-Count': String(total), 'X-Page-Items': String(data.length), Link: links.join(', ') });
}
