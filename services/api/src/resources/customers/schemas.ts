/**
 * Customer schemas (docs/api.md section 5): the create and update bodies, the public object and
 * the stored row, with their types derived from them.
 */
import { DateColumn, Nullable, StringEnum, Type, metadataPatchSchema, metadataSchema, objectId, rowColumns, textSchema, timestampProperties, updateBody, type Static } from '../../schemas/common.js';

/** Values of `kind`: a person (first/last name, date of birth) or a company (full name). */
export const CUSTOMER_KINDS = ['individual', 'company'] as const;
/** Values of `contact_details[].type`. */
export const CONTACT_TYPES = ['email', 'phone_number', 'mobile_number', 'address'] as const;
/** Values of `contact_details[].usage`. */
export const CONTACT_USAGES = ['personal', 'work', 'billing', 'other'] as const;

/** One entry of `contact_details` as given in a request. */
export const ContactDetailInput = Type.Object(
  {
    type: StringEnum(CONTACT_TYPES),
    value: textSchema(500, 'The address, number or postal address.'),
    primary: Type.Optional(Type.Boolean({ description: 'The preferred contact of its type.' })),
    usage: Type.Optional(Nullable(StringEnum(CONTACT_USAGES))),
  },
  {
    additionalProperties: false,
    if: { properties: { type: { const: 'email' } } },
    then: { properties: { value: { type: 'string', format: 'email' } } },
  },
);

/** One entry of `contact_details` as stored and answered (defaults filled in). */
export const ContactDetail = Type.Object({
  type: StringEnum(CONTACT_TYPES),
  value: Type.String(),
  primary: Type.Boolean(),
  usage: Nullable(StringEnum(CONTACT_USAGES)),
});

const nullableText = (max: number, description: string) => Nullable(textSchema(max, description));

const fields = {
  kind: StringEnum(CUSTOMER_KINDS),
  full_name: nullableText(300, 'Full name; derived from first and last name when omitted.'),
  first_name: nullableText(150, 'Given name (individuals).'),
  last_name: nullableText(150, 'Family name (individuals).'),
  date_of_birth: Nullable(Type.String({ format: 'date', description: 'ISO 8601 date (individuals).' })),
  preferred_locale: Nullable(Type.String({ pattern: '^[a-z]{2,3}(-[A-Z]{2})?$', description: 'BCP 47 language tag, e.g. `en-GB`.' })),
  contact_details: Type.Array(ContactDetailInput, { maxItems: 20 }),
  metadata: metadataSchema,
};

/** `POST /customers` body: a full name, or first and last name. */
export const CustomerCreate = Type.Object(
  {
    kind: fields.kind,
    full_name: Type.Optional(fields.full_name),
    first_name: Type.Optional(fields.first_name),
    last_name: Type.Optional(fields.last_name),
    date_of_birth: Type.Optional(fields.date_of_birth),
    preferred_locale: Type.Optional(fields.preferred_locale),
    contact_details: Type.Optional(fields.contact_details),
    metadata: Type.Optional(fields.metadata),
  },
  { additionalProperties: false, anyOf: [{ required: ['full_name'] }, { required: ['first_name', 'last_name'] }] },
);
/** `PATCH /customers/{id}` body. */
export const CustomerUpdate = updateBody({ ...fields, metadata: metadataPatchSchema });

/** The public customer object. */
export const Customer = Type.Object({
  id: objectId('cus'),
  object: Type.Literal('customer'),
  ...fields,
  contact_details: Type.Array(ContactDetail),
  ...timestampProperties,
});

/** A row of `customers`; soft-deleted rows keep `deleted_at`. */
export const CustomerRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  kind: fields.kind,
  full_name: Nullable(Type.String()),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  date_of_birth: Nullable(Type.String()),
  preferred_locale: Nullable(Type.String()),
  contact_details: Type.Array(ContactDetail),
  metadata: metadataSchema,
  deleted_at: Nullable(DateColumn),
});

export type ContactDetail = Static<typeof ContactDetail>;
export type CustomerCreate = Static<typeof CustomerCreate>;
export type CustomerUpdate = Static<typeof CustomerUpdate>;
export type Customer = Static<typeof Customer>;
export type CustomerRow = Static<typeof CustomerRow>;
/** A validated create or update body. */
export type CustomerInput = CustomerUpdate;
