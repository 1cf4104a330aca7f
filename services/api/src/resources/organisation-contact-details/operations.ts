/**
 * `/organisations/{organisationId}/contact_details` (docs/api.md section 15, the public API's
 * organisation sub-resource): list, create, retrieve and update (`PATCH`, and `PUT` as its twin)
 * the contact details of an organisation, behind `organisations:read` / `organisations:write`.
 * Another tenant's (or mode's, or no) organisation is 404, for the list too. The list has no
 * maintained counter: it is paged and counted as a search (`X-Total-Count-Relation`), `query`
 * narrowing it (`metadata['key']`).
 */
import {
  OrganisationContactDetail,
  OrganisationContactDetailCreate,
  OrganisationContactDetailUpdate,
  createOrganisationContactDetail,
  findOrganisationContactDetail,
  organisationContactDetailsResource,
  toOrganisationContactDetail,
  updateOrganisationContactDetail,
  type OrganisationContactDetailRow,
} from '@dms/domain/organisation-contact-details';
import { findOwned } from '@dms/domain/kernel';
import { organisationsResource } from '@dms/domain/organisations';
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { searchPage } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';

const names = crud({
  resource: organisationContactDetailsResource,
  path: '/organisations/{organisationId}/contact_details',
  tag: 'Organisation contact details',
  read: 'organisations:read',
  write: 'organisations:write',
  parentParams: { organisationId: organisationsResource.idPrefix },
});
const object = { name: 'OrganisationContactDetail', schema: OrganisationContactDetail };
const TABLE = organisationContactDetailsResource.table;

/** The operations of `/organisations/{organisationId}/contact_details`. */
export const organisationContactDetailOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    operationId: 'listOrganisationContactDetails',
    summary: "List an organisation's contact details",
    description:
      "The organisation's contact details, newest first, paginated with `limit`/`after`/`before`; `X-Total-Count` counts them up to a cap, with `X-Total-Count-Relation`. `query` narrows them (`metadata['key']:value`).",
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    errors: ['invalid_search_query'],
    handler: async (i) => {
      await findOwned(i.ctx.db, organisationsResource, i.tenantId, i.params.organisationId);
      return searchPage<OrganisationContactDetailRow, OrganisationContactDetail>(i, {
        resource: organisationContactDetailsResource,
        narrow: (q) => void q.where(`${TABLE}.organisation_id`, i.params.organisationId),
        serialize: (rows) => rows.map(toOrganisationContactDetail),
      });
    },
  }),
  defineOperation({
    ...names.create,
    operationId: 'createOrganisationContactDetail',
    summary: 'Add a contact detail to an organisation',
    description:
      'How customers reach the organisation: `type` and `value` as a customer\u2019s contact detail (e-mail addresses valid, telephone numbers validated and stored in E.164, a national one read as GB; an address an object). `primary: true` demotes the current primary of the type.',
    body: { name: 'OrganisationContactDetailCreate', schema: OrganisationContactDetailCreate },
    response: { ...object, status: 201 },
    events: ['organisation_contact_detail.created', 'organisation_contact_detail.updated'],
    handler: (i) => createOrganisationContactDetail(i.ctx.db, i.tenantId, i.params.organisationId, i.body),
  }),
  defineOperation({
    ...names.retrieve,
    operationId: 'retrieveOrganisationContactDetail',
    summary: "Retrieve an organisation's contact detail",
    response: { ...object, status: 200 },
    handler: async (i) => {
      await findOwned(i.ctx.db, organisationsResource, i.tenantId, i.params.organisationId);
      return toOrganisationContactDetail(await findOrganisationContactDetail(i.ctx.db, i.tenantId, i.params.organisationId, i.params.id));
    },
  }),
  defineOperation({
    ...names.update,
    operationId: 'updateOrganisationContactDetail',
    summary: "Update an organisation's contact detail",
    description:
      'Send only the fields to change; `value` is checked against the stored `type`; `metadata` merges. `primary: true` demotes the current primary of the type.',
    body: { name: 'OrganisationContactDetailUpdate', schema: OrganisationContactDetailUpdate },
    response: { ...object, status: 200 },
    events: ['organisation_contact_detail.updated'],
    handler: (i) => updateOrganisationContactDetail(i.ctx.db, i.tenantId, i.params.organisationId, i.params.id, i.body),
  }),
];
