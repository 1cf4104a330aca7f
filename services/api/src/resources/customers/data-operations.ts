/**
 * A customer's data (docs/api.md section 20, "A customer's data"): who read
 * it (`GET /customers/{id}/access_log`), everything held about the person
 * (`GET /customers/{id}/export`) and erasure (`POST /customers/{id}/erase`). Another tenant's
 * (or no) customer is 404.
 */
import { customersResource } from '@dms/domain/customers';
import {
  CustomerAccess,
  CustomerErase,
  CustomerExport,
  eraseCustomer,
  exportCustomer,
  accessLogOf,
  customerAccessLogResource,
  toCustomerAccess,
  type AccessRow,
  type CustomerAccess as AccessObject,
} from '@dms/domain/personal-data';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, nestedUnder } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { customerInPath } from './personal-data.js';
import { show } from './operations.js';
import { Customer } from './schemas.js';

const read = { token: true, scope: 'customers:read' } as const;
const underCustomer = nestedUnder(customersResource, 'id', 'customer_access_log.customer_id');

/** The operations of `/customers/{id}/access_log`, `/export` and `/erase`. */
export const customerDataOperations: AnyOperation[] = [
  defineOperation({
    method: 'get',
    path: '/customers/{id}/access_log',
    operationId: 'listCustomerAccessLog',
    tag: 'Customers',
    summary: "List who read a customer's personal data",
    description:
      "Every read of the customer's personal data by an operator token or a portal session (who, which operation, when), newest first, paginated with `limit`/`after`/`before`. The log is append-only.",
    access: read,
    pathParams: { id: customersResource.idPrefix },
    query: pageQuery(),
    response: { name: 'CustomerAccess', schema: CustomerAccess, status: 200, list: true },
    handler: async (i) => {
      const customer = await underCustomer(i);
      return listPage<AccessRow, AccessObject>(i, {
        resource: customerAccessLogResource,
        narrow: customer.narrow,
        counter: () => ['customer_access_log', customer.id],
        total: async () => Number((await accessLogOf(i.ctx.db, i.tenantId, customer.id).count({ n: '*' }).first())?.n ?? 0),
        serialize: (rows) => rows.map(toCustomerAccess),
      });
    },
  }),
  defineOperation({
    method: 'get',
    path: '/customers/{id}/export',
    operationId: 'exportCustomer',
    tag: 'Customers',
    summary: 'Export everything held about a customer',
    description:
      "One JSON document (GDPR Article 15): the customer with its contact preferences, every contact detail, debt, payment, payment plan, communication (with its rendered text), the events about them and the access log, streamed section by section. An operator's export is recorded in the access log. Field by field: docs/api.md section 20.",
    access: read,
    pathParams: { id: customersResource.idPrefix },
    response: { name: 'CustomerExport', schema: CustomerExport, status: 200, produces: 'application/json' },
    personalData: customerInPath,
    handler: async (i) => {
      const chunks = await exportCustomer(i.ctx.db, i.tenantId, i.params.id);
      i.res.status(200).type('application/json; charset=utf-8');
      i.res.setHeader('Content-Disposition', `attachment; filename="${i.params.id}-export.json"`);
      await pipeline(Readable.from(chunks), i.res);
    },
  }),
  defineOperation({
    method: 'post',
    path: '/customers/{id}/erase',
    operationId: 'eraseCustomer',
    tag: 'Customers',
    summary: 'Erase a customer',
    description:
      "GDPR Article 17, tenants and operators, with a `reason`: every personal field of the customer (names, date of birth, metadata, contact details, addresses, communications' subjects and bodies) is replaced by `[erased]` (the date of birth by null), and so is every copy of them in stored events (and so webhook delivery bodies), import rows and errors and stored responses, in one transaction with `customer.erased`. Amounts, dates, statuses and ids stay. 409 `invalid_state_transition` naming the debts while one is being worked or has a pending payment; erasing an erased customer answers it unchanged.",
    access: { token: true, scope: 'customers:write' },
    pathParams: { id: customersResource.idPrefix },
    body: { name: 'CustomerErase', schema: CustomerErase },
    response: { name: 'Customer', schema: Customer, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['customer.erased'],
    handler: (i) => show.one(i, eraseCustomer(i.ctx.db, i.tenantId, i.params.id, i.body.reason)),
  }),
];
