/**
 * Organisation schemas (docs/api.md section 5): the create and update bodies, the public object
 * and the stored row, with their types derived from them.
 */
import {
  DateColumn,
  Nullable,
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

const fields = {
  name: textSchema(200, 'Legal or trading name.'),
  customer_facing_name: Nullable(textSchema(200, 'Name shown to customers, when different from `name`.')),
  metadata: metadataSchema,
};

/** `POST /organisations` body. */
export const OrganisationCreate = Type.Object(
  { name: fields.name, customer_facing_name: Type.Optional(fields.customer_facing_name), metadata: Type.Optional(metadataSchema) },
  { additionalProperties: false },
);
/** `PATCH /organisations/{id}` body. */
export const OrganisationUpdate = updateBody({ ...fields, metadata: metadataPatchSchema });

/** The public organisation object. */
export const Organisation = Type.Object({ id: objectId('org'), object: Type.Literal('organisation'), ...fields, ...timestampProperties });

/** A row of `organisations`. */
export const OrganisationRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  name: Type.String(),
  customer_facing_name: Nullable(Type.String()),
  metadata: metadataSchema,
  created_at: DateColumn,
});

export type OrganisationCreate = Static<typeof OrganisationCreate>;
export type OrganisationUpdate = Static<typeof OrganisationUpdate>;
export type Organisation = Static<typeof Organisation>;
export type OrganisationRow = Static<typeof OrganisationRow>;
/** A validated create or update body. */
export type OrganisationInput = OrganisationUpdate;
