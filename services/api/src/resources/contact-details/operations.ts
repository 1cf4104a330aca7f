/**
 * `/customers/{customerId}/contact_details` (docs/api.md section 10): list, create, retrieve,
 * update (`PATCH`, and `PUT` as its twin) and delete the contact details of a customer, behind
 * `customers:read` / `customers:write`. Another tenant's (or no) customer is 404, for the list too.
 * Also the public API's `/debts/{debtId}/contact-details` (section 15): list and create the
 * contact details of the debt's customer.
 */
import {
  ContactDetail,
  ContactDetailCreate,
  ContactDetailUpdate,
  contactDetailsResource,
  findContactDetail,
  toContactDetail,
  type ContactDetailRow,
} from '@dms/domain/contact-details';
import { createContactDetail, customersResource, deleteContactDetail, updateContactDetail } from '@dms/domain/customers';
import { debtsResource, type DebtRow } from '@dms/domain/debts';
import { findOwned } from '@dms/domain/kernel';
import type { OperationInput } from '../../operations/operation.js';
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, nestedUnder } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';
import { contactDetailsOwner } from '../customers/personal-data.js';

const contactScopes = { resource: contactDetailsResource, tag: 'Contact details', read: 'customers:read', write: 'customers:write' } as const;
const names = crud({ ...contactScopes, path: '/customers/{customerId}/contact_details', parentParams: { customerId: customersResource.idPrefix } });
const object = { name: 'ContactDetail', schema: ContactDetail };
const underCustomer = nestedUnder(customersResource, 'customerId', 'customer_contact_details.customer_id');
const ofDebt = crud({ ...contactScopes, path: '/debts/{debtId}/contact-details', parentParams: { debtId: debtsResource.idPrefix } });

/** The visible contact details of customer `customerId` (the tenant's, checked by the caller), a page. */
function detailsOf(i: OperationInput<{ limit?: number; after?: string; before?: string; query?: string }, unknown, unknown>, customerId: string) {
  return listPage<ContactDetailRow, ContactDetail>(i, {
    resource: contactDetailsResource,
    narrow: (q) => void q.where('customer_contact_details.customer_id', customerId).whereNot('customer_contact_details.status', 'deleted'),
    counter: () => ['contact_details', customerId],
    serialize: (rows) => rows.map(toContactDetail),
  });
}

/**
 * The customer of the path's debt (`/debts/{debtId}/contact-details`).
 * @throws ApiError 404 `resource_missing` for another tenant's or no debt
 */
async function customerOfDebt(i: OperationInput<unknown, unknown, { debtId: string }>): Promise<string> {
  return (await findOwned<DebtRow>(i.ctx.db, debtsResource, i.tenantId, i.params.debtId)).customer_id;
}

/** The operations of `/customers/{customerId}/contact_details`. */
export const contactDetailOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    personalData: contactDetailsOwner,
    summary: "List a customer's contact details",
    description: 'The visible (not deleted) contact details, newest first, paginated with `limit`/`after`/`before`.',
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: async (i) => detailsOf(i, (await underCustomer(i)).id),
  }),
  defineOperation({
    ...ofDebt.list,
    personalData: contactDetailsOwner,
    operationId: 'listDebtContactDetails',
    summary: "List the contact details of a debt's customer",
    description: "The public API's path (docs/api.md section 15): the same list as `GET /customers/{customerId}/contact_details` for the debt's customer.",
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: async (i) => detailsOf(i, await customerOfDebt(i)),
  }),
  defineOperation({
    ...ofDebt.create,
    operationId: 'createDebtContactDetail',
    summary: "Add a contact detail to a debt's customer",
    description: "The public API's path (docs/api.md section 15): as `POST /customers/{customerId}/contact_details` for the debt's customer.",
    body: { name: 'ContactDetailCreate', schema: ContactDetailCreate },
    response: { ...object, status: 201 },
    events: ['customer_contact_detail.created', 'customer_contact_detail.updated'],
    handler: async (i) => createContactDetail(i.ctx.db, i.tenantId, await customerOfDebt(i), i.body),
  }),
  defineOperation({
    ...names.create,
    description:
      "E-mail addresses must be valid; telephone numbers are validated and stored in E.164 (a national number is read in the region of the customer's `preferred_locale`, GB when none). `primary: true` demotes the current primary of the type.",
    body: { name: 'ContactDetailCreate', schema: ContactDetailCreate },
    response: { ...object, status: 201 },
    events: ['customer_contact_detail.created', 'customer_contact_detail.updated'],
    handler: (i) => createContactDetail(i.ctx.db, i.tenantId, i.params.customerId, i.body),
  }),
  defineOperation({
    ...names.retrieve,
    personalData: contactDetailsOwner,
    description: 'Deleted details stay retrievable, with `status: deleted`.',
    response: { ...object, status: 200 },
    handler: async (i) => {
      await underCustomer(i);
      return toContactDetail(await findContactDetail(i.ctx.db, i.tenantId, i.params.customerId, i.params.id));
    },
  }),
  defineOperation({
    ...names.update,
    description: 'Send only the fields to change; `value` is checked against the stored `type`. A deleted detail cannot be changed (409).',
    body: { name: 'ContactDetailUpdate', schema: ContactDetailUpdate },
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['customer_contact_detail.updated'],
    handler: (i) => updateContactDetail(i.ctx.db, i.tenantId, i.params.customerId, i.params.id, i.body),
  }),
  defineOperation({
    ...names.delete,
    description: "Sets `status: deleted`: the detail leaves the list and the customer's `contact_details`, and stays retrievable. Answers the detail.",
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['customer_contact_detail.deleted'],
    handler: (i) => deleteContactDetail(i.ctx.db, i.tenantId, i.params.customerId, i.params.id),
  }),
];
