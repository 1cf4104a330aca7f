/**
 * `/customers`: create, retrieve, list.
 */
import { Router } from 'express';
import type { AppContext } from '../context.js';
import { requireScope } from '../middleware/require-scope.js';
import { validator } from '../http/validation.js';
import { createCustomer, customerSchemas, toCustomer, type CustomerInput, type CustomerRow } from '../domain/customers.js';
import { listHandler, retrieveHandler } from './list.js';

export function customerRoutes(ctx: AppContext): Router {
  const router = Router();
  const validateCreate = validator<CustomerInput>(customerSchemas.create);

  router.get(
    '/',
    requireScope('customers:read'),
    listHandler<CustomerRow, ReturnType<typeof toCustomer>>(ctx, {
      table: 'customers',
      counter: () => ['customers'],
      serialize: (rows) => rows.map(toCustomer),
    }),
  );
  router.post('/', requireScope('customers:write'), async (req, res) => {
    res.status(201).json(await createCustomer(ctx.db, req.principal!.tenantId, validateCreate(req.body)));
  });
  router.get('/:id', requireScope('customers:read'), retrieveHandler(ctx, 'customers', toCustomer));
  return router;
}
