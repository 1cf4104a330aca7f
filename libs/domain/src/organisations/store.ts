/**
 * Organisations (docs/api.md section 5): the creditor brands a tenant collects for. Written
 * through the shared skeleton (kernel/owned.ts); the mapping and the columns are declared here.
 * The writes here return the row without recording `organisation.*`: the public object embeds its
 * contact details, a folder after this one (docs/api.md section 15), so the composed writes there
 * (organisation-contact-details/organisation-writes.ts) write the details and record the events.
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

// The skeleton writes the row; the event is recorded by the composed writes once the details are written too.
const organisations: OwnedResource<OrganisationRow, OrganisationRow, typeof organisationsResource> = {
  resource: organisationsResource,
  toObject: (row) => row,
};

/**
 * Inserts an organisation (no event: the caller records `organisation.created`).
 * @throws ApiError 400 `validation_failed` for a collection strategy naming an unknown template (organisations/strategy.ts)
 */
export function insertOrganisation(trx: Knex.Transaction, tenantId: string, input: OrganisationCreate): Promise<OrganisationRow> {
  return createOwned(
    trx,
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
    (t) => checkStrategy(t, tenantId, input.configurations?.collection_strategy),
  );
}

/**
 * Updates an organisation under its lock (`PATCH`/`PUT`): given fields replace
 * (`payment_options_configuration` as a whole), each given key of `configurations` replaces that
 * key, `metadata` merges. No event: the caller records `organisation.updated`.
 * @param also runs on the locked current row before the write (the composed write replaces the details there)
 * @throws ApiError 404 `resource_missing` for another tenant's or an unknown id, 400 `validation_failed`
 */
export function changeOrganisation(
  trx: Knex.Transaction,
  tenantId: string,
  id: string,
  input: OrganisationUpdate,
  also?: (current: OrganisationRow, trx: Knex.Transaction) => Promise<void>,
): Promise<OrganisationRow> {
  return updateOwned(
    trx,
    tenantId,
    organisations,
    id,
    async (current, t) => {
      await checkStrategy(t, tenantId, input.configurations?.collection_strategy);
      await also?.(current, t);
      return {
        ...givenFields(input, ['name', 'customer_facing_name', 'internal_name', 'industry', 'logo']),
        ...(input.payment_options_configuration === undefined ? {} : { payment_options_configuration: JSON.stringify(input.payment_options_configuration) }),
        ...(input.configurations === undefined ? {} : { configurations: JSON.stringify({ ...current.configurations, ...input.configurations }) }),
      };
    },
    input.metadata,
  );
}
