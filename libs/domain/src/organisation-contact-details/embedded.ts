/**
 * The organisation object as served (docs/api.md sections 5 and 15): an organisation with its
 * visible contact details embedded (`contact_details`, oldest first), read in the same query as the
 * organisation (a correlated aggregate per row), so a page of organisations costs one query. It is
 * composed here, not in organisations/, because organisation contact details come after
 * organisations in the domain's dependency order (registry.ts).
 */
import type { Knex } from '@dms/db';
import { findOwned } from '../kernel/scoped.js';
import { organisationsResource } from '../organisations/resource.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import { toOrganisation } from '../organisations/store.js';
import { organisationContactDetailsResource } from './resource.js';
import type { OrganisationWithContactDetails } from './organisation-schemas.js';
import { toOrganisationContactDetail, type OrganisationContactDetailRowLike } from './store.js';

/** An organisation row read with `withOrganisationContactDetails` (details absent when not selected). */
export type OrganisationRowWithDetails = OrganisationRow & { contact_details?: OrganisationContactDetailRowLike[] };

/**
 * The select-list expression `contact_details`: an organisation's visible details as one JSON array
 * oldest first (served by the `(organisation_id, seq)` index).
 * @param organisationColumn the qualified id column of the organisations being read
 */
export function organisationContactDetailsColumn(db: Knex | Knex.Transaction, organisationColumn = 'organisations.id'): Knex.Raw {
  return db.raw(
    `(SELECT coalesce(jsonb_agg(to_jsonb(ocd) ORDER BY ocd.seq), '[]'::jsonb) FROM ?? AS ocd WHERE ocd.organisation_id = ?? AND ocd.deleted_at IS NULL) AS contact_details`,
    [organisationContactDetailsResource.table, organisationColumn],
  );
}

/** Makes a query of organisations select their columns plus their visible contact details (`contact_details`). */
export const withOrganisationContactDetails = (db: Knex | Knex.Transaction) => (q: Knex.QueryBuilder) =>
  void q.select('organisations.*', organisationContactDetailsColumn(db));

/** Maps a row (read with its details) to the public object. */
export function toOrganisationWithDetails(row: OrganisationRowWithDetails): OrganisationWithContactDetails {
  const { metadata: m, created_at: c, updated_at: u, ...rest } = toOrganisation(row);
  return { ...rest, contact_details: (row.contact_details ?? []).map(toOrganisationContactDetail), metadata: m, created_at: c, updated_at: u };
}

/**
 * Loads the tenant's organisation `id` with its contact details.
 * @throws ApiError 404 `resource_missing` (unknown, or another tenant's or mode's)
 */
export async function loadOrganisation(db: Knex | Knex.Transaction, tenantId: string, id: string): Promise<OrganisationWithContactDetails> {
  return toOrganisationWithDetails(
    await findOwned<OrganisationRowWithDetails>(db, organisationsResource, tenantId, id, { select: withOrganisationContactDetails(db) }),
  );
}
