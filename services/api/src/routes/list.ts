/**
 * The one list handler every collection uses: tenant scoping, pagination parameters, keyset page,
 * maintained total, headers. A resource module only says which table and how to serialize.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Knex } from '@dms/db';
import { findOwned, tenantRows, type ScopedTable } from '../db/scoped.js';
import type { AppContext } from '../context.js';
import { keysetPage, listTotal, parsePageParams, sendPage } from '../http/pagination.js';

/** What a collection declares to be listed. */
export interface ListSpec<Row, Out extends { id: string }> {
  table: ScopedTable;
  /** Extra query parameters the endpoint accepts (kept in the links). */
  extraParams?: readonly string[];
  /** Narrows the tenant's rows, e.g. to a parent (`debt_id`). */
  narrow?: (q: Knex.QueryBuilder, req: Request) => void;
  /** Counter key of the list: `[list, parentId]`. */
  counter: (req: Request) => [string, string?];
  /** Serializes the page's rows (in one go, so expansions can be batched). */
  serialize: (rows: Row[], req: Request) => Promise<Out[]> | Out[];
}

/** Builds `GET /<collection>`. */
export function listHandler<Row, Out extends { id: string }>(ctx: AppContext, spec: ListSpec<Row, Out>): RequestHandler {
  return async (req: Request, res: Response) => {
    const params = parsePageParams(req.query, spec.extraParams);
    const tenantId = req.principal!.tenantId;
    const list = tenantRows(ctx.db, spec.table, tenantId);
    spec.narrow?.(list, req);
    const [listName, parentId] = spec.counter(req);
    const [page, total] = await Promise.all([
      keysetPage<Row>(list, list.clone(), spec.table, params),
      listTotal(ctx.db, tenantId, listName, parentId),
    ]);
    sendPage(req, res, ctx.cfg.PUBLIC_BASE_URL, { data: await spec.serialize(page.rows, req), total, page, params });
  };
}

/** Builds `GET /<collection>/{id}` for a tenant-scoped table. */
export function retrieveHandler<Row, Out>(ctx: AppContext, table: ScopedTable, serialize: (row: Row, req: Request) => Promise<Out> | Out): RequestHandler {
  return async (req, res) => {
    const row = await findOwned<Row>(ctx.db, table, req.principal!.tenantId, String(req.params.id));
    res.json(await serialize(row, req));
  };
}
