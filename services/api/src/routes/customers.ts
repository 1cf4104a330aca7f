/**
 * `/customers`: create, retrieve, update, delete, list, search.
 */
import { Router } from 'express';
import type { AppContext } from '../context.js';
import { requireScope } from '../middleware/require-scope.js';
import { validator } from '../http/validation.js';
import {
  createCustomer,
  customerSchemas,
  deleteCustomer,
  toCustomer,
  updateCustomer,
  type CustomerInput,
  type CustomerRow,
} from '../domain/customers.js';
import { CUSTOMER_SEARCH_FIELDS } from '../search/registries.js';
import { listHandler, retrieveHandler } from './list.js';
import { searchHandler } from './search.js';

/**
 * `/customers`: list, search, create, retrieve, update (CONTRACT section 5), each behind its
 * `customers:read` or `customers:write` scope; other tenants' ids answer 404.
 */
export function customerRoutes(ctx: AppContext): Router {
  const router = Router();
  const validateCreate = validator<CustomerInput>(customerSchemas.create);
  const validateUpdate = validator<CustomerInput>(customerSchemas.update);

  router.get(
    '/',
    requireScope('customers:read'),
    listHandler<CustomerRow, ReturnType<typeof toCustomer>>(ctx, {
      table: 'customers',
      counter: () => ['customers'],
      serialize: (rows) => rows.map(toCustomer),
    }),
  );
  router.get(
    '/search',
    requireScope('customers:read'),
    searchHandler<CustomerRow, ReturnType<typeof toCustomer>>(ctx, {
      table: 'customers',
      fields: CUSTOMER_SEARCH_FIELDS,
      serialize: (rows) => rows.map(toCustomer),
    }),
  );
  router.post('/', requireScope('customers:write'), async (req, res) => {
    res.status(201).json(await createCustomer(ctx.db, req.principal!.tenantId, validateCreate(req.body)));
  });
  router.get('/:id', requireScope('customers:read'), retrieveHandler(ctx, 'customers', toCustomer));
  router.patch('/:id', requireScope('customers:write'), async (req, res) => {
    res.json(await updateCustomer(ctx.db, req.principal!.tenantId, String(req.params.id), validateUpdate(req.body ?? {})));
  });
  router.delete('/:id', requireScope('customers:write'), async (req, res) => {
    res.json(await deleteCustomer(ctx.db, req.principal!.tenantId, String(req.params.id)));
  });
  return router;
}
