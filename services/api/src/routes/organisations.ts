/**
 * `/organisations`: create, retrieve, update, list.
 */
import { Router } from 'express';
import type { AppContext } from '../context.js';
import { requireScope } from '../middleware/require-scope.js';
import { validator } from '../http/validation.js';
import {
  createOrganisation,
  organisationSchemas,
  toOrganisation,
  updateOrganisation,
  type OrganisationInput,
  type OrganisationRow,
} from '../domain/organisations.js';
import { listHandler, retrieveHandler } from './list.js';

/**
 * `/organisations`: list, create, retrieve, update (CONTRACT section 5), each behind its
 * `organisations:read` or `organisations:write` scope; other tenants' ids answer 404.
 */
export function organisationRoutes(ctx: AppContext): Router {
  const router = Router();
  const validateCreate = validator<OrganisationInput>(organisationSchemas.create);
  const validateUpdate = validator<OrganisationInput>(organisationSchemas.update);

  router.get(
    '/',
    requireScope('organisations:read'),
    listHandler<OrganisationRow, ReturnType<typeof toOrganisation>>(ctx, {
      table: 'organisations',
      counter: () => ['organisations'],
      serialize: (rows) => rows.map(toOrganisation),
    }),
  );
  router.post('/', requireScope('organisations:write'), async (req, res) => {
    res.status(201).json(await createOrganisation(ctx.db, req.principal!.tenantId, validateCreate(req.body)));
  });
  router.get('/:id', requireScope('organisations:read'), retrieveHandler(ctx, 'organisations', toOrganisation));
  router.patch('/:id', requireScope('organisations:write'), async (req, res) => {
    res.json(await updateOrganisation(ctx.db, req.principal!.tenantId, String(req.params.id), validateUpdate(req.body ?? {})));
  });
  return router;
}
