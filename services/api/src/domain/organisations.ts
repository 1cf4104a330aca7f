/**
 * Organisations (CONTRACT section 5): the creditor brands a tenant collects for.
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { recordEvent } from '../db/outbox.js';
import { findOwned, tenantRows } from '../db/scoped.js';
import type { JsonSchema } from '../http/validation.js';
import { iso, metadataPatchSchema, metadataSchema, textSchema, timestampProperties } from './schema-parts.js';
import { mergeMetadata } from './metadata.js';

/** A row of `organisations`. */
export interface OrganisationRow {
  id: string;
  tenant_id: string;
  name: string;
  customer_facing_name: string | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

/** The public organisation object. */
export interface Organisation {
  id: string;
  object: 'organisation';
  name: string;
  customer_facing_name: string | null;
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
}

const fields = {
  name: textSchema(200, 'Legal or trading name.'),
  customer_facing_name: { ...textSchema(200, 'Name shown to customers, when different from `name`.'), type: ['string', 'null'] },
  metadata: metadataSchema,
};

/** JSON Schemas (2020-12) of the create and update bodies and of the response object. */
export const organisationSchemas: { create: JsonSchema; update: JsonSchema; object: JsonSchema } = {
  create: { type: 'object', additionalProperties: false, required: ['name'], properties: fields },
  update: { type: 'object', additionalProperties: false, minProperties: 1, properties: { ...fields, metadata: metadataPatchSchema } },
  object: {
    type: 'object',
    required: ['id', 'object', 'name', 'customer_facing_name', 'metadata', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string', examples: ['org_1a2B3c4D5e6F7g8H9i0JkLmN'] },
      object: { const: 'organisation' },
      ...fields,
      ...timestampProperties,
    },
  },
};

/** A validated create or update body. */
export type OrganisationInput = { name?: string; customer_facing_name?: string | null; metadata?: Record<string, string> };

/** Maps a row to the public object. */
export function toOrganisation(row: OrganisationRow): Organisation {
  return {
    id: row.id,
    object: 'organisation',
    name: row.name,
    customer_facing_name: row.customer_facing_name,
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** Creates an organisation and its `organisation.created` event in one transaction. */
export async function createOrganisation(db: Knex, tenantId: string, input: OrganisationInput): Promise<Organisation> {
  return db.transaction(async (trx) => {
    const [row] = await trx<OrganisationRow>('organisations')
      .insert({
        id: newId('org'),
        tenant_id: tenantId,
        name: input.name!,
        customer_facing_name: input.customer_facing_name ?? null,
        metadata: JSON.stringify(input.metadata ?? {}) as unknown as Record<string, string>,
      })
      .returning('*');
    const organisation = toOrganisation(row!);
    await recordEvent(trx, tenantId, 'organisation.created', organisation);
    return organisation;
  });
}

/**
 * Updates an organisation (`PATCH`): given fields replace, `metadata` merges (see `mergeMetadata`);
 * writes `organisation.updated` in the same transaction. The row is locked so concurrent metadata
 * merges do not lose keys.
 * @throws ApiError 404 `resource_missing` for another tenant's or an unknown id
 */
export async function updateOrganisation(db: Knex, tenantId: string, id: string, input: OrganisationInput): Promise<Organisation> {
  return db.transaction(async (trx) => {
    const current = await findOwned<OrganisationRow>(trx, 'organisations', tenantId, id, { forUpdate: true });
    const changes: Record<string, unknown> = { updated_at: trx.fn.now() };
    if (input.name !== undefined) changes.name = input.name;
    if (input.customer_facing_name !== undefined) changes.customer_facing_name = input.customer_facing_name;
    if (input.metadata !== undefined) changes.metadata = JSON.stringify(mergeMetadata(current.metadata, input.metadata));
    const [row] = await tenantRows(trx, 'organisations', tenantId).where('organisations.id', current.id).update(changes).returning('*');
    const organisation = toOrganisation(row as OrganisationRow);
    await recordEvent(trx, tenantId, 'organisation.updated', organisation);
    return organisation;
  });
}
