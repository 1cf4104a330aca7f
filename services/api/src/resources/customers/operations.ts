/**
 * `/customers` (docs/api.md sections 4 and 5): list, search, create, retrieve, update, delete,
 * behind `customers:read` / `customers:write`; other tenants' ids answer 404.
 */
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, retrieveOne, searchPage } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';
import { searchQuery } from '../../search/query-schema.js';
import { CUSTOMER_SEARCH_FIELDS } from '../../search/registries.js';
import { deletedObjectSchema } from '../../schemas/common.js';
import { Customer, CustomerCreate, CustomerUpdate, type CustomerRow } from './schemas.js';
import { createCustomer, deleteCustomer, toCustomer, updateCustomer } from './store.js';

const names = crud({ path: '/customers', idPrefix: 'cus', tag: 'Customers', noun: 'customer', read: 'customers:read', write: 'customers:write' });
const object = { name: 'Customer', schema: Customer };
const serialize = (rows: CustomerRow[]) => rows.map(toCustomer);

/** The operations of `/customers`. */
export const customerOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: (i) => listPage<CustomerRow, Customer>(i, { table: 'customers', counter: () => ['customers'], serialize }),
  }),
  defineOperation({
    ...names.search,
    query: searchQuery(CUSTOMER_SEARCH_FIELDS),
    response: { ...object, status: 200, list: true },
    handler: (i) => searchPage<CustomerRow, Customer>(i, { table: 'customers', fields: CUSTOMER_SEARCH_FIELDS, serialize }),
  }),
  defineOperation({
    ...names.create,
    body: { name: 'CustomerCreate', schema: CustomerCreate },
    response: { ...object, status: 201 },
    events: ['customer.created'],
    handler: (i) => createCustomer(i.ctx.db, i.tenantId, i.body),
  }),
  defineOperation({
    ...names.retrieve,
    response: { ...object, status: 200 },
    handler: (i) => retrieveOne(i, 'customers', toCustomer),
  }),
  defineOperation({
    ...names.update,
    body: { name: 'CustomerUpdate', schema: CustomerUpdate },
    response: { ...object, status: 200 },
    events: ['customer.updated'],
    handler: (i) => updateCustomer(i.ctx.db, i.tenantId, i.params.id!, i.body),
  }),
  defineOperation({
    ...names.delete,
    response: { name: 'DeletedCustomer', schema: deletedObjectSchema('customer'), status: 200 },
    events: ['customer.deleted'],
    handler: (i) => deleteCustomer(i.ctx.db, i.tenantId, i.params.id!),
  }),
];
