/**
 * Organisations (docs/api.md section 5): the creditor brands a tenant collects for. Written
 * through the shared skeleton (kernel/owned.ts); only the mapping and the columns are declared here.
 */
import type { Knex } from '@dms/db';
import { createOwned, givenFields, updateOwned, type OwnedResource } from '../kernel/owned.js';
import { iso } from '../kernel/schemas.js';
import { organisationsResource } from './resource.js';
import type { Organisation, OrganisationCreate, OrganisationRow, OrganisationUpdate } from './schemas.js';
import { checkStrategy } from './strategy.js';

/** Maps a row to the public object. */
export function toOrganisation(row: OrganisationRow): Organisation {
  return {
    id: row.id,
    object: 'organisation',
    name: row.name,
    customer_facing_name: row.customer_facing_name,
    internal_name: row.internal_name,
    industry: row.industry,
    logo: row.logo,
    payment_options_configuration: row.payment_options_configuration,
    configurations: row.configurations,
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

const organisations: OwnedResource<OrganisationRow, Organisation, typeof organisationsResource> = {
  resource: organisationsResource,
  toObject: toOrganisation,
  events: { created: 'organisation.created', updated: 'organisation.updated' },
};

/**
 * Creates an organisation and its `organisation.created` event in one transaction.
 * @throws ApiError 400 `validation_failed` for a collection strategy naming an unknown template (organisations/strategy.ts)
 */
export function createOrganisation(db: Knex, tenantId: string, input: OrganisationCreate): Promise<Organisation> {
  return createOwned(
    db,
    tenantId,
    organisations,
    {
      name: input.name,
      customer_facing_name: input.customer_facing_name ?? null,
      internal_name: input.internal_name ?? null,
      industry: input.industry ?? null,
      logo: input.logo ?? null,
      payment_options_configuration: JSON.stringify(input.payment_options_configuration ?? {}),
      configurations: JSON.stringify(input.configurations ?? {}),
      metadata: input.metadata,
    },
    (trx) => checkStrategy(trx, tenantId, input.configurations?.collection_strategy),
  );
}

/**
 * Updates an organisation (`PATCH`): given fields replace (`payment_options_configuration` as a
 * whole), each given key of `configurations`
 * replaces that key, `metadata` merges; writes
 * `organisation.updated` in the same transaction.
 * @throws ApiError 404 `resource_missing` for another tenant's or an unknown id
 */
export function updateOrganisation(db: Knex, tenantId: string, id: string, input: OrganisationUpdate): Promise<Organisation> {
  return updateOwned(
    db,
    tenantId,
    organisations,
    id,
    async (current, trx) => {
      await checkStrategy(trx, tenantId, input.configurations?.collection_strategy);
      return {
        ...givenFields(input, ['name', 'customer_facing_name', 'internal_name', 'industry', 'logo']),
        ...(input.payment_options_configuration === undefined ? {} : { payment_options_configuration: JSON.stringify(input.payment_options_configuration) }),
        ...(input.configurations === undefined ? {} : { configurations: JSON.stringify({ ...current.configurations, ...input.configurations }) }),
      };
    },
    input.metadata,
  );
}
