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

/**
 * `configurations` (docs/api.md sections 13 to 15): the organisation's settings in the public API's
 * shape, one key per concern, each validated by its own schema (`additionalProperties: false`: an
 * unknown key or a field of the wrong shape is 400 naming it). The keys are added by the concerns
 * that read them (the collection strategy, payouts).
 */
export const OrganisationConfigurations = Type.Object(
  {
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

const fields = {
  name: textSchema(200, 'Legal or trading name.'),
  customer_facing_name: Nullable(textSchema(200, 'Name shown to customers, when different from `name`.')),
  metadata: metadataSchema,
};

/** `POST /organisations` body. */
export const OrganisationCreate = Type.Object(
  {
    name: fields.name,
    customer_facing_name: Type.Optional(fields.customer_facing_name),
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
