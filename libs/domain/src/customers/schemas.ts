/**
 * Customer schemas (docs/api.md sections 5 and 10): the create and update bodies, the public
 * object (with its contact details embedded; the API adds its debts with `expand[]=debts`) and the
 * stored row, with their types derived from them.
 */
import { ContactDetail, ContactDetailCreate, type ContactDetailRow } from '../contact-details/schemas.js';
import { DELIVERY_METHODS } from '../communication-templates/schemas.js';
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

/**
 * Values of `kind`: a person (first/last name, date of birth), a company (full name), or `unknown`
 * (the public API's value when the creditor does not know which, docs/api.md section 15).
 */
export const CUSTOMER_KINDS = ['individual', 'company', 'unknown'] as const;

const nullableText = (max: number, description: string) => Nullable(textSchema(max, description));

/** A local time of the contact window, `HH:MM` from 08:00 to 21:00 (docs/api.md section 12). */
const windowTime = (description: string) => Type.String({ pattern: '^((0[89]|1[0-9]|20):[0-5][0-9]|21:00)$', maxLength: 5, description });
const localeTag = Type.String({ pattern: '^[a-z]{2,3}(-[A-Z]{2})?$', maxLength: 6, description: 'BCP 47 language tag, e.g. `en-GB`.' });

/**
 * What the customer asked about being contacted (docs/api.md section 10, "Contact preferences"):
 * the channels they accept, the hours they prefer within 08:00-21:00 in their time zone, and
 * their language. The collection engine obeys them (section 13).
 */
export const ContactPreferences = Type.Object(
  {
    channels: Type.Array(StringEnum(DELIVERY_METHODS), {
      uniqueItems: true,
      maxItems: 3,
      description: 'The channels the customer accepts; the engine never uses another.',
    }),
    hours: Type.Optional(
      Nullable(
        Type.Object(
          { from: windowTime('Earliest local time, 08:00 or later.'), until: windowTime('Latest local time (exclusive), 21:00 or earlier, after `from`.') },
          { additionalProperties: false, description: "Preferred hours in the customer's time zone; null: the whole 08:00-21:00 window." },
        ),
      ),
    ),
    language: Type.Optional(Nullable(localeTag)),
  },
  { additionalProperties: false },
);
export type ContactPreferences = Static<typeof ContactPreferences>;

/** Who changed a customer's contact preferences: the tenant's API, the customer's portal, or their `STOP` reply to an SMS. */
export const PREFERENCE_ACTORS = ['api', 'portal', 'sms_stop'] as const;
export type PreferenceActor = (typeof PREFERENCE_ACTORS)[number];

/** The contact preferences as shown (and stored): what was set, who set it and when. */
export const ContactPreferencesShown = Type.Object({
  ...ContactPreferences.properties,
  changed_by: StringEnum(PREFERENCE_ACTORS, { description: 'Who set them last: `api`, `portal` or `sms_stop` (an inbound `STOP` reply).' }),
  changed_at: Type.String({ format: 'date-time', description: 'When they were set last.' }),
});
export type ContactPreferencesShown = Static<typeof ContactPreferencesShown>;

const fields = {
  kind: StringEnum(CUSTOMER_KINDS, { description: 'A person, a company, or `unknown` when the creditor does not know (default `individual` on create).' }),
  full_name: nullableText(300, 'Full name; derived from first and last name when omitted.'),
  first_name: nullableText(150, 'Given name (individuals).'),
  last_name: nullableText(150, 'Family name (individuals).'),
  date_of_birth: Nullable(dateSchema('ISO 8601 date (individuals).')),
  preferred_locale: Nullable(localeTag),
  contact_preferences: Nullable(ContactPreferences, {
    description: 'Contact preferences; null when the customer expressed none (every channel, the whole window).',
  }),
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
    contact_preferences: Type.Optional(fields.contact_preferences),
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
  contact_preferences: Nullable(ContactPreferencesShown, {
    description: 'Contact preferences; null when the customer expressed none (every channel, the whole window).',
  }),
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
  /** Legacy clear date, null once sealed (see birth-dates.ts). */
  date_of_birth: Nullable(Type.String()),
  /** The sealed `YYYY-MM-DD` date of birth (see birth-dates.ts). */
  date_of_birth_encrypted: Type.Optional(Nullable(Type.String())),
  preferred_locale: Nullable(Type.String()),
  contact_preferences: Type.Optional(Nullable(Type.Unsafe<ContactPreferencesShown>({}))),
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
