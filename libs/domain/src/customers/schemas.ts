/**
 * Customer schemas (docs/api.md sections 5 and 10): the create and update bodies, the public
 * object (with its contact details embedded; the API adds its debts with `expand[]=debts`) and the
 * stored row, with their types derived from them.
 */
import { ContactDetail, ContactDetailCreate, type ContactDetailRow } from '../contact-details/schemas.js';
import {
  DateColumn,
  Nullable,
  StringEnum,
  Type,
  dateSchema,
  metadataPatchSchema,
  metadataSchema,
  objectId,
  rowColumns,
  textSchema,
  timestampProperties,
  updateBody,
  type Static,
} from '../kernel/schemas.js';

/** Values of `kind`: a person (first/last name, date of birth) or a company (full name). */
export const CUSTOMER_KINDS = ['individual', 'company'] as const;

const nullableText = (max: number, description: string) => Nullable(textSchema(max, description));

const fields = {
  kind: StringEnum(CUSTOMER_KINDS, { description: 'A person or a company (default `individual` on create).' }),
  full_name: nullableText(300, 'Full name; derived from first and last name when omitted.'),
  first_name: nullableText(150, 'Given name (individuals).'),
  last_name: nullableText(150, 'Family name (individuals).'),
  date_of_birth: Nullable(dateSchema('ISO 8601 date (individuals).')),
  preferred_locale: Nullable(Type.String({ pattern: '^[a-z]{2,3}(-[A-Z]{2})?$', maxLength: 6, description: 'BCP 47 language tag, e.g. `en-GB`.' })),
  contact_details: Type.Array(ContactDetailCreate, {
    maxItems: 20,
    description:
      'On create, each entry becomes a contact detail object; on update, the whole set of visible contact details (equal entries keep their object).',
  }),
  metadata: metadataSchema,
};

/** `POST /customers` body: a full name, or first and last name. */
export const CustomerCreate = Type.Object(
  {
    kind: Type.Optional(fields.kind),
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
  contact_details: Type.Array(ContactDetail, { description: 'The visible contact details (not deleted), oldest first.' }),
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
  /** The visible details, aggregated into the row by `contactDetailsColumn` (absent when not selected). */
  contact_details: Type.Optional(Type.Unsafe<ContactDetailRowJson[]>({})),
  metadata: metadataSchema,
  deleted_at: Nullable(DateColumn),
});

/** A contact detail row as aggregated into JSON (timestamps as strings). */
export type ContactDetailRowJson = Omit<ContactDetailRow, 'created_at' | 'updated_at'> & { created_at: string; updated_at: string };
export type CustomerCreate = Static<typeof CustomerCreate>;
export type CustomerUpdate = Static<typeof CustomerUpdate>;
export type Customer = Static<typeof Customer>;
export type CustomerRow = Static<typeof CustomerRow>;
/** A validated create or update body. */
export type CustomerInput = CustomerUpdate;
