/**
 * `/customers/{customerId}/contact_details` (docs/api.md section 10): list, create, retrieve,
 * update (`PATCH`, and `PUT` with the same meaning) and delete (soft) a customer's contact
 * details, behind `customers:read` / `customers:write`. A customer that is not the tenant's (or is
 * deleted) is 404, for the list too; a detail under another customer does not exist there.
 */
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';
import { findOwned } from '../../db/scoped.js';
import { ContactDetail, ContactDetailCreate, ContactDetailUpdate, type ContactDetailRow } from './schemas.js';
import { createContactDetail, deleteContactDetail, findContactDetail, toContactDetail, updateContactDetail } from './store.js';

const names = crud({
  path: '/customers/{customerId}/contact_details',
  idPrefix: 'cd',
  tag: 'Contact details',
  noun: 'contact detail',
  read: 'customers:read',
  write: 'customers:write',
  parentParams: { customerId: 'cus' },
});
const object = { name: 'ContactDetail', schema: ContactDetail };

/** The operations of `/customers/{customerId}/contact_details`. */
export const contactDetailOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    summary: "List a customer's contact details",
    description: 'The visible (not deleted) contact details, newest first, paginated with `limit`/`after`/`before`.',
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: async (i) => {
      const customerId = i.params.customerId!;
      await findOwned(i.ctx.db, 'customers', i.tenantId, customerId);
      return listPage<ContactDetailRow, ContactDetail>(i, {
        table: 'customer_contact_details',
        narrow: (q) => void q.where('customer_contact_details.customer_id', customerId).whereNot('customer_contact_details.status', 'deleted'),
        counter: () => ['contact_details', customerId],
        serialize: (rows) => rows.map(toContactDetail),
      });
    },
  }),
  defineOperation({
    ...names.create,
    description:
      "E-mail addresses must be valid; telephone numbers are validated and stored in E.164 (a national number is read in the region of the customer's `preferred_locale`, GB when none). `primary: true` demotes the current primary of the type.",
    body: { name: 'ContactDetailCreate', schema: ContactDetailCreate },
    response: { ...object, status: 201 },
    events: ['customer_contact_detail.created', 'customer_contact_detail.updated'],
    handler: (i) => createContactDetail(i.ctx.db, i.tenantId, i.params.customerId!, i.body),
  }),
  defineOperation({
    ...names.retrieve,
    description: 'Deleted details stay retrievable, with `status: deleted`.',
    response: { ...object, status: 200 },
    handler: async (i) => {
      await findOwned(i.ctx.db, 'customers', i.tenantId, i.params.customerId!);
      return toContactDetail(await findContactDetail(i.ctx.db, i.tenantId, i.params.customerId!, i.params.id!));
    },
  }),
  defineOperation({
    ...names.update,
    description: 'Send only the fields to change; `value` is checked against the stored `type`. A deleted detail cannot be changed (409).',
    body: { name: 'ContactDetailUpdate', schema: ContactDetailUpdate },
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['customer_contact_detail.updated'],
    handler: (i) => updateContactDetail(i.ctx.db, i.tenantId, i.params.customerId!, i.params.id!, i.body),
  }),
  defineOperation({
    ...names.delete,
    description: "Sets `status: deleted`: the detail leaves the list and the customer's `contact_details`, and stays retrievable. Answers the detail.",
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['customer_contact_detail.deleted'],
    handler: (i) => deleteContactDetail(i.ctx.db, i.tenantId, i.params.customerId!, i.params.id!),
  }),
];
