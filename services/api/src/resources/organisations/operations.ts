/**
 * `/organisations` (docs/api.md sections 5 and 15): list, create, retrieve, update, behind
 * `organisations:read` / `organisations:write`; other tenants' ids answer 404. The object embeds
 * its visible contact details, read with the organisations (one query per page); create and update
 * take `contact_details` (organisation-contact-details/organisation-writes.ts in the domain).
 */
import {
  OrganisationCreateWithDetails,
  OrganisationUpdateWithDetails,
  OrganisationWithContactDetails,
  createOrganisationWithDetails,
  loadOrganisation,
  toOrganisationWithDetails,
  updateOrganisationWithDetails,
  withOrganisationContactDetails,
  type OrganisationRowWithDetails,
} from '@dms/domain/organisation-contact-details';
import { organisationsResource } from '@dms/domain/organisations';
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';

const names = crud({ resource: organisationsResource, path: '/organisations', tag: 'Organisations' });
const object = { name: 'Organisation', schema: OrganisationWithContactDetails };

/** The operations of `/organisations`. */
export const organisationOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: (i) =>
      listPage<OrganisationRowWithDetails, OrganisationWithContactDetails>(i, {
        resource: organisationsResource,
        narrow: (q) => withOrganisationContactDetails(i.ctx.db)(q),
        counter: () => ['organisations'],
        serialize: (rows) => rows.map(toOrganisationWithDetails),
      }),
  }),
  defineOperation({
    ...names.create,
    description:
      'Each entry of `contact_details` becomes an organisation contact detail (events `organisation.created`, then `organisation_contact_detail.created`); a bad entry is 400 naming it (`contact_details[0].value`), nothing created.',
    body: { name: 'OrganisationCreate', schema: OrganisationCreateWithDetails },
    response: { ...object, status: 201 },
    events: ['organisation.created', 'organisation_contact_detail.created'],
    handler: (i) => createOrganisationWithDetails(i.ctx.db, i.tenantId, i.body),
  }),
  defineOperation({
    ...names.retrieve,
    response: { ...object, status: 200 },
    handler: (i) => loadOrganisation(i.ctx.db, i.tenantId, i.params.id),
  }),
  defineOperation({
    ...names.update,
    description:
      'Send only the fields to change; `metadata` merges. `contact_details` is the whole new set of visible contact details: an entry equal to a visible detail (type and normalised value) keeps it, the details not given are deleted, the rest created (events `organisation.updated`, then the details\u2019 `deleted`, `updated`, `created`).',
    body: { name: 'OrganisationUpdate', schema: OrganisationUpdateWithDetails },
    response: { ...object, status: 200 },
    events: ['organisation.updated', 'organisation_contact_detail.created', 'organisation_contact_detail.updated', 'organisation_contact_detail.deleted'],
    handler: (i) => updateOrganisationWithDetails(i.ctx.db, i.tenantId, i.params.id, i.body),
  }),
];
