/**
 * `/debts`: create, retrieve, list.
 */
import { Router } from 'express';
import type { AppContext } from '../context.js';
import { requireScope } from '../middleware/require-scope.js';
import { validator } from '../http/validation.js';
import { createDebt, debtSchemas, toDebt, type DebtInput, type DebtRow } from '../domain/debts.js';
import { listHandler, retrieveHandler } from './list.js';

export function debtRoutes(ctx: AppContext): Router {
  const router = Router();
  const validateCreate = validator<DebtInput>(debtSchemas.create);

  router.get(
    '/',
    requireScope('debts:read'),
    listHandler<DebtRow, ReturnType<typeof toDebt>>(ctx, {
      table: 'debts',
      counter: () => ['debts'],
      serialize: (rows) => rows.map((r) => toDebt(r)),
    }),
  );
  router.post('/', requireScope('debts:write'), async (req, res) => {
    res.status(201).json(await createDebt(ctx.db, req.principal!.tenantId, validateCreate(req.body)));
  });
  router.get('/:id', requireScope('debts:read'), retrieveHandler<DebtRow, ReturnType<typeof toDebt>>(ctx, 'debts', (row) => toDebt(row)));
  return router;
}
