/**
 * `/customers` (docs/api.md sections 4, 5 and 10): list, search, create, retrieve, update, delete,
 * behind `customers:read` / `customers:write`, with `expand[]=debts` on every read and write; other
 * tenants' ids answer 404. `POST /customers/{id}/portal_links` makes a portal link (section 18). Customers are read with their contact details in the same query.
 */
import type { Knex } from '@dms/db';
import { deletedObjectSchema } from '@dms/domain/kernel';
import {
  CustomerCreate,
  CustomerUpdate,
  createCustomer,
  customersResource,
  deleteCustomer,
  loadCustomer,
  toCustomer,
  updateCustomer,
  withContactDetails,
  type Customer as CustomerObject,
  type CustomerRow,
} from '@dms/domain/customers';
import { PortalLink, PortalLinkCreate, issuePortalLink } from '@dms/domain/portal';
import { defineOperation, type AnyOperation, type OperationInput } from '../../operations/operation.js';
import { listPage, searchPage } from '../../operations/lists.js';
import { pageQuery, querySchema, searchQuery } from '../../operations/query.js';
import { presenter } from '../../operations/expansion.js';
import { crud } from '../../operations/crud.js';
import { CUSTOMER_EXPANSIONS } from './expansion.js';
import { Customer } from './schemas.js';
import { customersShown } from './personal-data.js';

const names = crud({ resource: customersResource, path: '/customers', tag: 'Customers' });
const object = { name: 'Customer', schema: Customer };
/** Customers as responses show them (`expand[]=debts`). */
export const show = presenter((rows: CustomerRow[]) => rows.map(toCustomer), CUSTOMER_EXPANSIONS);
/** Adds the contact details to a list query. */
const narrow = (q: Knex.QueryBuilder, i: OperationInput<unknown, unknown, unknown>) => withContactDetails(i.ctx.db)(q);

/** The operations of `/customers`. */
export const customerOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    personalData: customersShown,
    query: pageQuery(show.expand),
    response: { ...object, status: 200, list: true },
    handler: (i) => listPage<CustomerRow, CustomerObject>(i, { resource: customersResource, narrow, counter: () => ['customers'], serialize: show.page(i) }),
  }),
  defineOperation({
    ...names.search,
    personalData: customersShown,
    query: searchQuery(customersResource.search, show.expand),
    response: { ...object, status: 200, list: true },
    handler: (i) => searchPage<CustomerRow, CustomerObject>(i, { resource: customersResource, narrow, serialize: show.page(i) }),
  }),
  defineOperation({
    ...names.create,
    description:
      '`kind` defaults to `individual`. Each entry of `contact_details` becomes a contact detail object (events `customer.created`, then `customer_contact_detail.created`).',
    query: querySchema(show.expand),
    body: { name: 'CustomerCreate', schema: CustomerCreate },
    response: { ...object, status: 201 },
    events: ['customer.created', 'customer_contact_detail.created'],
    handler: (i) => show.one(i, createCustomer(i.ctx.db, i.tenantId, i.body)),
  }),
  defineOperation({
    ...names.retrieve,
    personalData: customersShown,
    query: querySchema(show.expand),
    response: { ...object, status: 200 },
    handler: (i) => show.one(i, loadCustomer(i.ctx.db, i.tenantId, i.params.id)),
  }),
  defineOperation({
    ...names.update,
    query: querySchema(show.expand),
    body: { name: 'CustomerUpdate', schema: CustomerUpdate },
    response: { ...object, status: 200 },
    events: ['customer.updated', 'customer_contact_detail.created', 'customer_contact_detail.updated', 'customer_contact_detail.deleted'],
    handler: (i) => show.one(i, updateCustomer(i.ctx.db, i.tenantId, i.params.id, i.body)),
  }),
  defineOperation({
    ...names.create,
    path: '/customers/{id}/portal_links',
    operationId: 'createCustomerPortalLink',
    summary: "Make a link to the customer's account in the portal",
    description:
      "For the tenant's own letters and calls (docs/api.md section 18): the answer's `url` carries the link's token, shown this once and never stored (only its hash is). Bound to the customer and, with `debt`, to one of their debts; it expires after `expires_in_days` (default the organisation's `configurations.portal.link_ttl_days`).",
    pathParams: { id: 'cus' },
    body: { name: 'PortalLinkCreate', schema: PortalLinkCreate },
    response: { name: 'PortalLink', schema: PortalLink, status: 201 },
    errors: ['invalid_state_transition'],
    handler: (i) => issuePortalLink(i.ctx.db, i.tenantId, i.params.id, i.body, i.ctx.cfg.PORTAL_BASE_URL),
  }),
  defineOperation({
    ...names.delete,
    response: { name: 'DeletedCustomer', schema: deletedObjectSchema('customer'), status: 200 },
    events: ['customer.deleted'],
    handler: (i) => deleteCustomer(i.ctx.db, i.tenantId, i.params.id),
  }),
];
