/**
 * `/debts/{id}/payments`: record a payment against a debt, list a debt's payments.
 */
import { Router, type RequestHandler } from 'express';
import type { AppContext } from '../context.js';
import { requireScope } from '../middleware/require-scope.js';
import { validator } from '../http/validation.js';
import { findOwned } from '../db/scoped.js';
import { createPayment, paymentSchemas, toPayment, type Payment, type PaymentInput, type PaymentRow } from '../domain/payments.js';
import { listHandler } from './list.js';

/** Mounted with `mergeParams` under `/debts/:debtId/payments`. */
export function paymentRoutes(ctx: AppContext): Router {
  const router = Router({ mergeParams: true });
  const validateCreate = validator<PaymentInput>(paymentSchemas.create);
  const debtId = (req: Parameters<RequestHandler>[0]) => String((req.params as Record<string, string>).debtId);
  // The list of another tenant's (or no) debt is 404, not an empty list.
  const debtMustExist: RequestHandler = async (req, _res, next) => {
    await findOwned(ctx.db, 'debts', req.principal!.tenantId, debtId(req));
    next();
  };

  router.get(
    '/',
    requireScope('debts:read'),
    debtMustExist,
    listHandler<PaymentRow, Payment>(ctx, {
      table: 'payments',
      narrow: (q, req) => void q.where('payments.debt_id', debtId(req)),
      counter: (req) => ['payments', debtId(req)],
      serialize: (rows) => rows.map(toPayment),
    }),
  );
  router.post('/', requireScope('debts:write'), async (req, res) => {
    res.status(201).json(await createPayment(ctx.db, req.principal!.tenantId, debtId(req), validateCreate(req.body)));
  });
  return router;
}
