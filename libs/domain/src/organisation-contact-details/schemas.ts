/**
 * Organisation contact detail schemas (docs/api.md section 15): the create and update bodies, the
 * public object and the stored row. Types and values are a customer's contact details' (section
 * 10: a telephone number stored in E.164, a national one read as GB; an address an object); an
 * organisation's carry no `source` or `status`.
 */
import { Address, CONTACT_DETAIL_TYPES, CONTACT_DETAIL_USAGES, anyValue, valueByType } from '../contact-details/schemas.js';
import {
  DateColumn,
  Nullable,
  StringEnum,
  Type,
  metadataPatchSchema,
  metadataSchema,
  objectId,
  rowColumns,
  timestampProperties,
  type Static,
} from '../kernel/schemas.js';

const writable = {
  primary: Type.Boolean({ description: 'The preferred detail of its type; setting it demotes the current primary of that type.' }),
  usage: Nullable(StringEnum(CONTACT_DETAIL_USAGES, { description: 'What the detail is used for.' })),
};

/** `POST /organisations/{organisationId}/contact_details` body. */
export const OrganisationContactDetailCreate = Type.Object(
  {
    type: StringEnum(CONTACT_DETAIL_TYPES),
    value: anyValue,
    primary: Type.Optional(writable.primary),
    usage: Type.Optional(writable.usage),
    metadata: Type.Optional(metadataSchema),
  },
  { additionalProperties: false, allOf: valueByType },
);

/** `PATCH`/`PUT /organisations/{organisationId}/contact_details/{id}` body; `value` is checked against the stored type. */
export const OrganisationContactDetailUpdate = Type.Object(
  {
    value: Type.Optional(anyValue),
    primary: Type.Optional(writable.primary),
    usage: Type.Optional(writable.usage),
    metadata: Type.Optional(metadataPatchSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** The public organisation contact detail object. */
export const OrganisationContactDetail = Type.Object({
  id: objectId('ocd'),
  object: Type.Literal('organisation_contact_detail'),
  organisation: Type.String({ description: 'Id of the organisation.' }),
  type: StringEnum(CONTACT_DETAIL_TYPES),
  value: Type.Unsafe<string | Static<typeof Address>>({
    anyOf: [{ type: 'string' }, Address],
    description: 'An e-mail address, a telephone number in E.164, or a postal address `{line_1, line_2, city, county, postal_code, country}`.',
  }),
  primary: Type.Boolean(),
  usage: Nullable(StringEnum(CONTACT_DETAIL_USAGES)),
  metadata: metadataSchema,
  ...timestampProperties,
});

/** A row of `organisation_contact_details` (migrations 065, 066): `value` for strings, `address` for addresses; `deleted_at` once left out of the set. */
export const OrganisationContactDetailRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  organisation_id: Type.String(),
  type: StringEnum(CONTACT_DETAIL_TYPES),
  value: Nullable(Type.String()),
  address: Nullable(Address),
  primary: Type.Boolean(),
  usage: Nullable(StringEnum(CONTACT_DETAIL_USAGES)),
  metadata: metadataSchema,
  deleted_at: Type.Optional(Nullable(DateColumn)),
});

export type OrganisationContactDetailCreate = Static<typeof OrganisationContactDetailCreate>;
export type OrganisationContactDetailUpdate = Static<typeof OrganisationContactDetailUpdate>;
export type OrganisationContactDetail = Static<typeof OrganisationContactDetail>;
export type OrganisationContactDetailRow = Static<typeof OrganisationContactDetailRow>;
