/**
 * `/organisations` (docs/api.md section 5): list, create, retrieve, update, behind
 * `organisations:read` / `organisations:write`; other tenants' ids answer 404.
 */
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, retrieveOne } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';
import { Organisation, OrganisationCreate, OrganisationUpdate, type OrganisationRow } from './schemas.js';
import { createOrganisation, toOrganisation, updateOrganisation } from './store.js';

const names = crud({
  path: '/organisations',
  idPrefix: 'org',
  tag: 'Organisations',
  noun: 'organisation',
  read: 'organisations:read',
  write: 'organisations:write',
});
const object = { name: 'Organisation', schema: Organisation };

/** The operations of `/organisations`. */
export const organisationOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: (i) =>
      listPage<OrganisationRow, Organisation>(i, { table: 'organisations', counter: () => ['organisations'], serialize: (rows) => rows.map(toOrganisation) }),
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
    handler: (i) => retrieveOne(i, 'organisations', toOrganisation),
  }),
  defineOperation({
    ...names.update,
    body: { name: 'OrganisationUpdate', schema: OrganisationUpdate },
    response: { ...object, status: 200 },
    events: ['organisation.updated'],
    handler: (i) => updateOrganisation(i.ctx.db, i.tenantId, i.params.id!, i.body),
  }),
];
