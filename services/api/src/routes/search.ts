/**
 * The one search handler (`GET /<collection>/search`, CONTRACT section 4): the tenant's visible
 * rows narrowed by the parsed `query`, paged by the same keyset as lists, with `X-Total-Count`
 * = number of matches (`count(*)` of the narrowed rows: a search has no maintained counter).
 */
import type { Request, RequestHandler, Response } from 'express';
import { ApiError } from '@dms/errors';
import { tenantRows, type ScopedTable } from '../db/scoped.js';
import type { AppContext } from '../context.js';
import { keysetPage, parsePageParams, sendPage } from '../http/pagination.js';
import { compileSearch, type SearchRegistry } from '../search/compiler.js';

/** What a collection declares to be searched. */
export interface SearchSpec<Row, Out extends { id: string }> {
  table: ScopedTable;
  fields: SearchRegistry;
  /** Query parameters accepted besides `query`, `limit`, `after`, `before` (kept in the links). */
  extraParams?: readonly string[];
  /** Validates the extra parameters before any query runs (e.g. `expand[]`). */
  check?: (req: Request) => void;
  /** Serializes the page's rows in one go (so expansions can be batched). */
  serialize: (rows: Row[], req: Request) => Promise<Out[]> | Out[];
}

function queryParam(req: Request): string {
  const raw = req.query.query;
  if (typeof raw !== 'string') {
    throw new ApiError('parameter_invalid', raw === undefined ? 'query is required.' : 'query must be given once.', { param: 'query' });
  }
  return raw;
}

/** Builds `GET /<collection>/search`. */
export function searchHandler<Row, Out extends { id: string }>(ctx: AppContext, spec: SearchSpec<Row, Out>): RequestHandler {
  return async (req: Request, res: Response) => {
    const params = parsePageParams(req.query, ['query', ...(spec.extraParams ?? [])]);
    spec.check?.(req);
    const list = tenantRows(ctx.db, spec.table, req.principal!.tenantId);
    const matches = compileSearch(list.clone(), queryParam(req), spec.fields);
    const [page, counted] = await Promise.all([
      keysetPage<Row>(list, matches, spec.table, params),
      matches.clone().clearSelect().clearOrder().count({ n: '*' }).first(),
    ]);
    const total = Number((counted as { n: number | string } | undefined)?.n ?? 0);
    sendPage(req, res, ctx.cfg.PUBLIC_BASE_URL, { data: await spec.serialize(page.rows, req), total, page, params });
  };
}
