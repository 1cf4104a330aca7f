/**
 * `/customers` (docs/api.md sections 4, 5 and 10): list, search, create, retrieve, update, delete,
 * behind `customers:read` / `customers:write`, with `expand[]=debts` on every read and write; other
 * tenants' ids answer 404. Customers are read with their contact details in the same query.
 */
import type { Knex } from '@dms/db';
import { defineOperation, type AnyOperation, type OperationInput } from '../../operations/operation.js';
import { listPage, searchPage } from '../../operations/lists.js';
import { pageQuery, querySchema } from '../../operations/query.js';
import { expandOne, expandQuery, expanderFor } from '../../operations/expansion.js';
import { crud } from '../../operations/crud.js';
import { searchQuery } from '../../search/query-schema.js';
import { CUSTOMER_SEARCH_FIELDS } from '../../search/registries.js';
import { deletedObjectSchema } from '../../schemas/common.js';
import { Customer, CustomerCreate, CustomerUpdate, type CustomerRow } from './schemas.js';
import { createCustomer, deleteCustomer, loadCustomer, toCustomer, updateCustomer, withContactDetails } from './store.js';
import { CUSTOMER_EXPANSIONS } from './expansion.js';

const names = crud({ path: '/customers', idPrefix: 'cus', tag: 'Customers', noun: 'customer', read: 'customers:read', write: 'customers:write' });
const object = { name: 'Customer', schema: Customer };
const expand = expandQuery(CUSTOMER_EXPANSIONS);
type Input = OperationInput<unknown, unknown>;

/** A page of rows (contact details aggregated in) as expanded customers. */
const serializer = (i: Input) => (rows: CustomerRow[]) => expanderFor(CUSTOMER_EXPANSIONS, i)(rows.map(toCustomer));
/** Adds the contact details to a list query. */
const narrow = (q: Knex.QueryBuilder, i: Input) => withContactDetails(i.ctx.db)(q);

/** The operations of `/customers`. */
export const customerOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    query: pageQuery(expand),
    response: { ...object, status: 200, list: true },
    handler: (i) => listPage<CustomerRow, Customer>(i, { table: 'customers', narrow, counter: () => ['customers'], serialize: serializer(i) }),
  }),
  defineOperation({
    ...names.search,
    query: searchQuery(CUSTOMER_SEARCH_FIELDS, expand),
    response: { ...object, status: 200, list: true },
    handler: (i) => searchPage<CustomerRow, Customer>(i, { table: 'customers', narrow, fields: CUSTOMER_SEARCH_FIELDS, serialize: serializer(i) }),
  }),
  defineOperation({
    ...names.create,
    description:
      '`kind` defaults to `individual`. Each entry of `contact_details` becomes a contact detail object (events `customer.created`, then `customer_contact_detail.created`).',
    query: querySchema(expand),
    body: { name: 'CustomerCreate', schema: CustomerCreate },
    response: { ...object, status: 201 },
    events: ['customer.created', 'customer_contact_detail.created'],
    handler: async (i) => expandOne(CUSTOMER_EXPANSIONS, i, await createCustomer(i.ctx.db, i.tenantId, i.body)),
  }),
  defineOperation({
    ...names.retrieve,
    query: querySchema(expand),
    response: { ...object, status: 200 },
    handler: async (i) => expandOne(CUSTOMER_EXPANSIONS, i, await loadCustomer(i.ctx.db, i.tenantId, i.params.id!)),
  }),
  defineOperation({
    ...names.update,
    query: querySchema(expand),
    body: { name: 'CustomerUpdate', schema: CustomerUpdate },
    response: { ...object, status: 200 },
    events: ['customer.updated', 'customer_contact_detail.created', 'customer_contact_detail.updated', 'customer_contact_detail.deleted'],
    handler: async (i) => expandOne(CUSTOMER_EXPANSIONS, i, await updateCustomer(i.ctx.db, i.tenantId, i.params.id!, i.body)),
  }),
  defineOperation({
    ...names.delete,
    response: { name: 'DeletedCustomer', schema: deletedObjectSchema('customer'), status: 200 },
    events: ['customer.deleted'],
    handler: (i) => deleteCustomer(i.ctx.db, i.tenantId, i.params.id!),
  }),
];
