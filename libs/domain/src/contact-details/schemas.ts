/**
 * Contact detail schemas (docs/api.md section 10): the create and update bodies, the public object
 * and the stored row, with their types derived from them. A detail's `value` is a string, except
 * for `address`, where it is a structured postal address.
 */
import {
  Nullable,
  StringEnum,
  Type,
  metadataPatchSchema,
  metadataSchema,
  objectId,
  rowColumns,
  textSchema,
  timestampProperties,
  type Static,
} from '../kernel/schemas.js';

/** Values of `type`. */
export const CONTACT_DETAIL_TYPES = ['email', 'phone_number', 'mobile_number', 'fax_number', 'address'] as const;
/** Types whose value is a telephone number, stored in E.164. */
export const PHONE_TYPES = ['phone_number', 'mobile_number', 'fax_number'] as const;
/** Values of `usage`. */
export const CONTACT_DETAIL_USAGES = ['permanent', 'temporary', 'work', 'supply_address', 'delivery_address', 'billing'] as const;
/** Values of `source`: who gave the detail. */
export const CONTACT_DETAIL_SOURCES = ['client', 'customer', 'support_agent', 'other'] as const;
/** Values of `status`; `deleted` is reached only by `DELETE`. */
export const CONTACT_DETAIL_STATUSES = ['unverified', 'verified', 'undeliverable', 'deleted'] as const;
const WRITABLE_STATUSES = ['unverified', 'verified', 'undeliverable'] as const;

const line = (description: string) => Type.Optional(Nullable(textSchema(200, description)));

/** A postal address as given: `line_1` required, the other parts optional. */
export const AddressInput = Type.Object(
  {
    line_1: textSchema(200, 'First line (house and street).'),
    line_2: line('Second line.'),
    city: line('Town or city.'),
    county: line('County, state or region.'),
    postal_code: Type.Optional(Nullable(textSchema(20, 'Postcode or ZIP code.'))),
    country: Type.Optional(Nullable(Type.String({ pattern: '^[A-Z]{2}$', maxLength: 2, description: 'ISO 3166-1 alpha-2 country code, e.g. `GB`.' }))),
  },
  { additionalProperties: false },
);

/** A postal address as stored and answered: every part present, null when not given. */
export const Address = Type.Object({
  line_1: Type.String(),
  line_2: Nullable(Type.String()),
  city: Nullable(Type.String()),
  county: Nullable(Type.String()),
  postal_code: Nullable(Type.String()),
  country: Nullable(Type.String()),
});

const valueDescription =
  "An e-mail address; a telephone number (international `+44…`, or national, read in the region of the customer's `preferred_locale`, GB when none; stored in E.164); or for `address` an object `{line_1, line_2, city, county, postal_code, country}`.";

/** `value` before its type is known: its shape is checked against `type` (below, and in values.ts); organisations' details share it. */
// As a string at most 320 characters (an e-mail address's limit, RFC 5321), as for every type but `address`.
export const anyValue = Type.Unsafe<string | Static<typeof AddressInput>>({ type: ['string', 'object'], maxLength: 320, description: valueDescription });

const writable = {
  primary: Type.Boolean({ description: 'The preferred detail of its type; setting it demotes the current primary of that type.' }),
  usage: Nullable(StringEnum(CONTACT_DETAIL_USAGES, { description: 'What the detail is used for.' })),
  source: StringEnum(CONTACT_DETAIL_SOURCES, { description: 'Who gave the detail (default `client`).' }),
  status: StringEnum(WRITABLE_STATUSES, { description: 'Verification status (default `unverified`); `deleted` is set by `DELETE`.' }),
};

/** Per type: an address is an object, anything else a non-empty string (an e-mail in e-mail format). */
export const valueByType = [
  {
    if: { properties: { type: { const: 'address' } }, required: ['type'] },
    then: { properties: { value: AddressInput } },
    else: { properties: { value: textSchema(320, valueDescription) } },
  },
  {
    if: { properties: { type: { const: 'email' } }, required: ['type'] },
    then: { properties: { value: { type: 'string', format: 'email', maxLength: 320 } } },
  },
];

/** `POST /customers/{customerId}/contact_details` body, and an entry of a customer's `contact_details` on create. */
export const ContactDetailCreate = Type.Object(
  {
    type: StringEnum(CONTACT_DETAIL_TYPES),
    value: anyValue,
    primary: Type.Optional(writable.primary),
    usage: Type.Optional(writable.usage),
    source: Type.Optional(writable.source),
    status: Type.Optional(writable.status),
    metadata: Type.Optional(metadataSchema),
  },
  { additionalProperties: false, allOf: valueByType },
);

/** `PATCH`/`PUT /customers/{customerId}/contact_details/{id}` body; `value` is checked against the stored type. */
export const ContactDetailUpdate = Type.Object(
  {
    value: Type.Optional(anyValue),
    primary: Type.Optional(writable.primary),
    usage: Type.Optional(writable.usage),
    source: Type.Optional(writable.source),
    status: Type.Optional(writable.status),
    metadata: Type.Optional(metadataPatchSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** The public contact detail object (also the entries of a customer's `contact_details`). */
export const ContactDetail = Type.Object({
  id: objectId('cd'),
  object: Type.Literal('contact_detail'),
  customer: Type.String({ description: 'Id of the customer.' }),
  type: StringEnum(CONTACT_DETAIL_TYPES),
  value: Type.Unsafe<string | Static<typeof Address>>({ anyOf: [{ type: 'string' }, Address], description: valueDescription }),
  primary: Type.Boolean(),
  usage: Nullable(StringEnum(CONTACT_DETAIL_USAGES)),
  source: StringEnum(CONTACT_DETAIL_SOURCES),
  status: StringEnum(CONTACT_DETAIL_STATUSES),
  metadata: metadataSchema,
  ...timestampProperties,
});

/** A row of `customer_contact_details` (migration 015): `value` for strings, `address` for addresses. */
export const ContactDetailRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  customer_id: Type.String(),
  type: StringEnum(CONTACT_DETAIL_TYPES),
  value: Nullable(Type.String()),
  address: Nullable(Address),
  primary: Type.Boolean(),
  usage: Nullable(StringEnum(CONTACT_DETAIL_USAGES)),
  source: StringEnum(CONTACT_DETAIL_SOURCES),
  status: StringEnum(CONTACT_DETAIL_STATUSES),
  metadata: metadataSchema,
});

export type AddressInput = Static<typeof AddressInput>;
export type Address = Static<typeof Address>;
export type ContactDetailCreate = Static<typeof ContactDetailCreate>;
export type ContactDetailUpdate = Static<typeof ContactDetailUpdate>;
export type ContactDetail = Static<typeof ContactDetail>;
export type ContactDetailRow = Static<typeof ContactDetailRow>;
export type ContactDetailType = (typeof CONTACT_DETAIL_TYPES)[number];
