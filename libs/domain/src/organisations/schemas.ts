/**
 * Organisation schemas (docs/api.md section 5): the create and update bodies, the public object
 * and the stored row, with their types derived from them.
 */
import {
  CURRENCIES,
  DateColumn,
  Nullable,
  StringEnum,
  Type,
  metadataPatchSchema,
  metadataSchema,
  objectId,
  rowColumns,
  textSchema,
  timestampProperties,
  updateBody,
  type Static,
} from '../kernel/schemas.js';
import { PayoutSettings } from './payout-settings.js';
import { CollectionStrategy } from './strategy.js';
import { PortalSettings } from './portal-settings.js';

/**
 * `configurations` (docs/api.md sections 13 to 15): the organisation's settings in the public API's
 * shape, one key per concern, each validated by its own schema (`additionalProperties: false`: an
 * unknown key or a field of the wrong shape is 400 naming it). The keys are added by the concerns
 * that read them (the collection strategy, payouts).
 */
export const OrganisationConfigurations = Type.Object(
  {
    payouts: Type.Optional(PayoutSettings),
    collection_strategy: Type.Optional(CollectionStrategy),
    portal: Type.Optional(PortalSettings),
    imports: Type.Optional(
      Type.Object(
        { currency: StringEnum(CURRENCIES, { description: 'Currency of the amounts in its import files (docs/api.md section 16); default GBP.' }) },
        { additionalProperties: false, description: 'How its CSV files are read (docs/api.md section 16).' },
      ),
    ),
  },
  { additionalProperties: false, description: "The organisation's settings, one key per concern." },
);
export type OrganisationConfigurations = Static<typeof OrganisationConfigurations>;

/**
 * `payment_options_configuration` (docs/api.md section 15): what the organisation lets its
 * customers do when they pay, in the public API's shape; every field optional, amounts in minor units.
 * The public API's own fields (`pay_later_permitted`, `payment_plans_permitted`, `metadata`) sit
 * beside our policy fields; all are stored as given (the whole object, a jsonb column) and returned.
 */
export const PaymentOptionsConfiguration = Type.Object(
  {
    pay_later_permitted: Type.Optional(
      Type.Boolean({ description: "Whether customers may promise one payment of the balance by a later date (the public API's field)." }),
    ),
    payment_plans_permitted: Type.Optional(Type.Boolean({ description: "Whether customers may agree a payment plan (the public API's field)." })),
    metadata: Type.Optional(metadataSchema),
    instalments_allowed: Type.Optional(Type.Boolean({ description: 'Whether customers may pay by instalments (a payment plan).' })),
    min_payment_amount: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1, description: 'Smallest single payment a customer may make, minor units.' }),
    ),
    max_instalments: Type.Optional(Type.Integer({ minimum: 1, maximum: 120, description: 'Most instalments a plan may have.' })),
    min_instalment_amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1, description: 'Smallest instalment, minor units.' })),
    settlement_allowed: Type.Optional(Type.Boolean({ description: 'Whether a settlement (less than the balance in full) may be offered.' })),
    max_discount_percent: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Largest settlement discount, percent of the balance.' })),
  },
  { additionalProperties: false, description: 'How customers may pay: pay later, payment plans (instalments) and settlements (each field optional).' },
);
export type PaymentOptionsConfiguration = Static<typeof PaymentOptionsConfiguration>;

const fields = {
  name: textSchema(200, 'Legal or trading name.'),
  customer_facing_name: Nullable(textSchema(200, 'Name shown to customers, when different from `name`.')),
  internal_name: Nullable(textSchema(200, "The tenant's own name for the organisation (never shown to customers).")),
  industry: Nullable(textSchema(100, 'The industry the organisation is in, e.g. `utilities`.')),
  logo: Nullable(Type.String({ format: 'uri', maxLength: 2048, description: 'Address of the logo image (absolute URL).' })),
  payment_options_configuration: PaymentOptionsConfiguration,
  metadata: metadataSchema,
};

/** `POST /organisations` body. */
export const OrganisationCreate = Type.Object(
  {
    name: fields.name,
    customer_facing_name: Type.Optional(fields.customer_facing_name),
    internal_name: Type.Optional(fields.internal_name),
    industry: Type.Optional(fields.industry),
    logo: Type.Optional(fields.logo),
    payment_options_configuration: Type.Optional(fields.payment_options_configuration),
    configurations: Type.Optional(OrganisationConfigurations),
    metadata: Type.Optional(metadataSchema),
  },
  { additionalProperties: false },
);
/** `PATCH /organisations/{id}` body: each key of `configurations` given replaces that key. */
export const OrganisationUpdate = updateBody({ ...fields, configurations: OrganisationConfigurations, metadata: metadataPatchSchema });

/** The public organisation object. */
export const Organisation = Type.Object({
  id: objectId('org'),
  object: Type.Literal('organisation'),
  ...fields,
  configurations: OrganisationConfigurations,
  ...timestampProperties,
});

/** A row of `organisations`. */
export const OrganisationRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  name: Type.String(),
  customer_facing_name: Nullable(Type.String()),
  internal_name: Nullable(Type.String()),
  industry: Nullable(Type.String()),
  logo: Nullable(Type.String()),
  payment_options_configuration: PaymentOptionsConfiguration,
  configurations: OrganisationConfigurations,
  metadata: metadataSchema,
  created_at: DateColumn,
});

export type OrganisationCreate = Static<typeof OrganisationCreate>;
export type OrganisationUpdate = Static<typeof OrganisationUpdate>;
export type Organisation = Static<typeof Organisation>;
export type OrganisationRow = Static<typeof OrganisationRow>;
/** A validated create or update body. */
export type OrganisationInput = OrganisationUpdate;
