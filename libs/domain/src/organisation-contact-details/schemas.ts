/**
 * Organisation contact detail schemas (docs/api.md section 15): the create and update bodies, the
 * public object and the stored row. Types and values are a customer's contact details' (section
 * 10: a telephone number stored in E.164, a national one read as GB; an address an object); an
 * organisation's carry no `source` or `status`.
 */
import { Address, ContactDetail, ContactDetailCreate, ContactDetailRow, ContactDetailUpdate } from '../contact-details/schemas.js';
import { DateColumn, Nullable, Type, objectId, type Static } from '../kernel/schemas.js';

/** `POST /organisations/{organisationId}/contact_details` body: a customer's contact detail's but for `source` and `status`. */
export const OrganisationContactDetailCreate = Type.Omit(ContactDetailCreate, ['source', 'status']);

/** `PATCH`/`PUT /organisations/{organisationId}/contact_details/{id}` body; `value` is checked against the stored type. */
export const OrganisationContactDetailUpdate = Type.Omit(ContactDetailUpdate, ['source', 'status']);

// The properties a customer's contact detail has that an organisation's has too, in the same order.
const { id: _id, object: _object, customer: _customer, source: _source, status: _status, ...shared } = ContactDetail.properties;
const { customer_id: _customerId, source: _sourceColumn, status: _statusColumn, ...sharedColumns } = ContactDetailRow.properties;

/** The public organisation contact detail object. */
export const OrganisationContactDetail = Type.Object({
  id: objectId('ocd'),
  object: Type.Literal('organisation_contact_detail'),
  organisation: Type.String({ description: 'Id of the organisation.' }),
  ...shared,
  value: Type.Unsafe<string | Static<typeof Address>>({
    anyOf: [{ type: 'string' }, Address],
    description: 'An e-mail address, a telephone number in E.164, or a postal address `{line_1, line_2, city, county, postal_code, country}`.',
  }),
});

/** A row of `organisation_contact_details` (migrations 065, 066): `value` for strings, `address` for addresses; `deleted_at` once left out of the set. */
export const OrganisationContactDetailRow = Type.Object({
  ...sharedColumns,
  organisation_id: Type.String(),
  deleted_at: Type.Optional(Nullable(DateColumn)),
});

export type OrganisationContactDetailCreate = Static<typeof OrganisationContactDetailCreate>;
export type OrganisationContactDetailUpdate = Static<typeof OrganisationContactDetailUpdate>;
export type OrganisationContactDetail = Static<typeof OrganisationContactDetail>;
export type OrganisationContactDetailRow = Static<typeof OrganisationContactDetailRow>;
