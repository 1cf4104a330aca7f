/**
 * `/debts`: create, retrieve, update and delete (while `initializing`), list and search, with
 * `expand[]` on every read.
 */
import { Router, type Request } from 'express';
import { ApiError } from '@dms/errors';
import type { AppContext } from '../context.js';
import { requireScope } from '../middleware/require-scope.js';
import { validator } from '../http/validation.js';
import { findOwned } from '../db/scoped.js';
import { createDebt, debtSchemas, updateDebt, type Debt, type DebtInput, type DebtRow } from '../domain/debts.js';
import { EXPAND_PARAM, parseExpand, serializeDebts } from '../domain/debt-expansion.js';
import { moveDebt } from '../domain/debt-moves.js';
import { deletedObject } from '../domain/deleted.js';
import { DEBT_SEARCH_FIELDS } from '../search/registries.js';
import { listHandler } from './list.js';
import { searchHandler } from './search.js';

/** Rejects query parameters other than `expand[]` on single-object reads. */
function onlyExpand(req: Request): void {
  const unknown = Object.keys(req.query).find((k) => k !== EXPAND_PARAM);
  if (unknown !== undefined) throw new ApiError('parameter_invalid', `Unknown query parameter: ${unknown}.`, { param: unknown });
}

/**
 * `/debts`: list, search, create, retrieve and update, with `expand` on reads (CONTRACT
 * section 5), each behind `debts:read` or `debts:write`; other tenants' ids answer 404.
 */
export function debtRoutes(ctx: AppContext): Router {
  const router = Router();
  const validateCreate = validator<DebtInput>(debtSchemas.create);
  const validateUpdate = validator<DebtInput>(debtSchemas.update);
  const serialize = (rows: DebtRow[], req: Request) => serializeDebts(ctx.db, req.principal!.tenantId, rows, parseExpand(req.query));

  router.get(
    '/',
    requireScope('debts:read'),
    listHandler<DebtRow, Debt>(ctx, { table: 'debts', extraParams: [EXPAND_PARAM], counter: () => ['debts'], serialize }),
  );
  router.get(
    '/search',
    requireScope('debts:read'),
    searchHandler<DebtRow, Debt>(ctx, {
      table: 'debts',
      fields: DEBT_SEARCH_FIELDS,
      extraParams: [EXPAND_PARAM],
      check: (req) => void parseExpand(req.query),
      serialize,
    }),
  );
  router.post('/', requireScope('debts:write'), async (req, res) => {
    res.status(201).json(await createDebt(ctx.db, req.principal!.tenantId, validateCreate(req.body)));
  });
  router.get('/:id', requireScope('debts:read'), async (req, res) => {
    onlyExpand(req);
    const expand = parseExpand(req.query);
    const row = await findOwned<DebtRow>(ctx.db, 'debts', req.principal!.tenantId, String(req.params.id));
    const [debt] = await serializeDebts(ctx.db, req.principal!.tenantId, [row], expand);
    res.json(debt);
  });
  router.patch('/:id', requireScope('debts:write'), async (req, res) => {
    res.json(await updateDebt(ctx.db, req.principal!.tenantId, String(req.params.id), validateUpdate(req.body ?? {})));
  });
  router.delete('/:id', requireScope('debts:write'), async (req, res) => {
    const debt = await moveDebt(ctx.db, req.principal!.tenantId, String(req.params.id), 'delete', null);
    res.json(deletedObject('debt', debt.id));
  });
  return router;
}
