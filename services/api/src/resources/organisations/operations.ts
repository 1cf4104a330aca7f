/**
 * `/organisations` (docs/api.md section 5): list, create, retrieve, update, behind
 * `organisations:read` / `organisations:write`; other tenants' ids answer 404.
 */
import {
  Organisation,
  OrganisationCreate,
  OrganisationUpdate,
  createOrganisation,
  organisationsResource,
  toOrganisation,
  updateOrganisation,
  type OrganisationRow,
} from '@dms/domain/organisations';
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, retrieveOne } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';

const names = crud({ resource: organisationsResource, path: '/organisations', tag: 'Organisations' });
const object = { name: 'Organisation', schema: Organisation };

/** The operations of `/organisations`. */
export const organisationOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: (i) =>
      listPage<OrganisationRow, Organisation>(i, {
        resource: organisationsResource,
        counter: () => ['organisations'],
        serialize: (rows) => rows.map(toOrganisation),
      }),
  }),
  defineOperation({
    ...names.create,
    body: { name: 'OrganisationCreate', schema: OrganisationCreate },
    response: { ...object, status: 201 },
    events: ['organisation.created'],
    handler: (i) => createOrganisation(i.ctx.db, i.tenantId, i.body),
  }),
  defineOperation({
    ...names.retrieve,
    response: { ...object, status: 200 },
    handler: (i) => retrieveOne(i, organisationsResource, toOrganisation),
  }),
  defineOperation({
    ...names.update,
    body: { name: 'OrganisationUpdate', schema: OrganisationUpdate },
    response: { ...object, status: 200 },
    events: ['organisation.updated'],
    handler: (i) => updateOrganisation(i.ctx.db, i.tenantId, i.params.id, i.body),
  }),
];
