/**
 * Organisation create and update with their contact details (docs/api.md sections 5 and 15),
 * composed here because organisation contact details come after organisations in the domain's
 * dependency order (registry.ts): organisations/ writes the row without its event, and this folder
 * writes the details and records `organisation.created|updated` (details embedded), then the
 * details' own events, in the same transaction, as customers do with theirs (section 10).
 *
 * `contact_details` given as a whole: on create each entry becomes a detail; on update the given
 * array is the new set of visible details. Entries equal to a visible detail (same type and
 * normalised value) keep that object (and its id), updated in place when `primary`, `usage` or
 * `metadata` (replaced) differ; visible details not given are deleted; the rest are created.
 * Within one array the last primary entry of a type wins. A bad entry is 400 naming
 * `contact_details[i].value` (or the schema's field), nothing written.
 */
import type { Knex } from '@dms/db';
import { demotionsFirst, detailKey, detailParam as param, lastPrimaryWins, matchDetails } from '../contact-details/sets.js';
import { DEFAULT_PHONE_REGION, storedValue } from '../contact-details/values.js';
import { recordEvent } from '../kernel/outbox.js';
import { organisationsResource } from '../organisations/resource.js';
import { changeOrganisation, insertOrganisation } from '../organisations/store.js';
import { loadOrganisation } from './embedded.js';
import type { OrganisationCreateWithDetails, OrganisationUpdateWithDetails, OrganisationWithContactDetails } from './organisation-schemas.js';
import type { OrganisationContactDetailCreate } from './schemas.js';
import {
  insertOrganisationDetail,
  liveOrganisationDetails,
  recordOrganisationDetailEvents,
  writeOrganisationDetail,
  type OrganisationDetailEvent,
} from './store.js';

/** Creates the details given at organisation create; returns their events in the order given. */
async function createDetails(trx: Knex.Transaction, tenantId: string, organisationId: string, list: readonly OrganisationContactDetailCreate[]) {
  const events: OrganisationDetailEvent[] = [];
  for (const [i, input] of lastPrimaryWins(list).entries()) events.push(...(await insertOrganisationDetail(trx, tenantId, organisationId, input, param(i))));
  return events;
}

/**
 * Makes `list` the visible details of the locked organisation.
 * @returns the events of the changes: `deleted`, then `updated`, then `created`
 * @throws ApiError 400 `validation_failed` naming `contact_details[i].value`
 */
async function replaceDetails(trx: Knex.Transaction, tenantId: string, organisationId: string, list: readonly OrganisationContactDetailCreate[]) {
  const wanted = lastPrimaryWins(list);
  const keys = wanted.map((c, i) => detailKey(c.type, storedValue(c.type, c.value, DEFAULT_PHONE_REGION, `${param(i)}.value`)));
  const { kept, unmatched } = matchDetails(keys, await liveOrganisationDetails(trx, tenantId, organisationId));
  const events: OrganisationDetailEvent[] = [];
  for (const row of unmatched)
    events.push(await writeOrganisationDetail(trx, tenantId, row.id, { deleted_at: trx.fn.now(), primary: false }, 'organisation_contact_detail.deleted'));
  for (const i of demotionsFirst(wanted)) {
    const row = kept[i];
    const input = wanted[i]!;
    if (!row) continue;
    const usage = input.usage === undefined ? row.usage : input.usage;
    if (input.primary === row.primary && usage === row.usage && input.metadata === undefined) continue;
    const changes = { primary: input.primary, usage, ...(input.metadata === undefined ? {} : { metadata: JSON.stringify(input.metadata) }) };
    events.push(await writeOrganisationDetail(trx, tenantId, row.id, changes, 'organisation_contact_detail.updated'));
  }
  for (const [i, input] of wanted.entries()) if (!kept[i]) events.push(...(await insertOrganisationDetail(trx, tenantId, organisationId, input, param(i))));
  return events;
}

/** Records the organisation's event (details embedded), then the details' events, in `trx`. */
async function recordOrganisationEvents(
  trx: Knex.Transaction,
  tenantId: string,
  type: 'organisation.created' | 'organisation.updated',
  id: string,
  details: OrganisationDetailEvent[],
): Promise<OrganisationWithContactDetails> {
  const organisation = await loadOrganisation(trx, tenantId, id);
  await recordEvent(trx, organisationsResource, tenantId, type, organisation);
  await recordOrganisationDetailEvents(trx, tenantId, details);
  return organisation;
}

/**
 * `POST /organisations`: creates an organisation with its contact details, and the events
 * `organisation.created` then `organisation_contact_detail.created`, in one transaction.
 * @throws ApiError 400 `validation_failed` naming `contact_details[i].value`, or a collection strategy's field
 */
export function createOrganisationWithDetails(db: Knex, tenantId: string, input: OrganisationCreateWithDetails): Promise<OrganisationWithContactDetails> {
  return db.transaction(async (trx) => {
    const { contact_details, ...fields } = input;
    const row = await insertOrganisation(trx, tenantId, fields);
    const details = await createDetails(trx, tenantId, row.id, contact_details ?? []);
    return recordOrganisationEvents(trx, tenantId, 'organisation.created', row.id, details);
  });
}

/**
 * `PATCH`/`PUT /organisations/{id}`: given fields replace (`contact_details` as the whole set),
 * `metadata` merges; writes `organisation.updated` (and the details' events) in the same transaction.
 * @throws ApiError 404 `resource_missing` (unknown, or another tenant's), 400 `validation_failed`
 */
export function updateOrganisationWithDetails(
  db: Knex,
  tenantId: string,
  id: string,
  input: OrganisationUpdateWithDetails,
): Promise<OrganisationWithContactDetails> {
  return db.transaction(async (trx) => {
    const { contact_details, ...fields } = input;
    let details: OrganisationDetailEvent[] = [];
    const row = await changeOrganisation(trx, tenantId, id, fields, async (current, t) => {
      if (contact_details !== undefined) details = await replaceDetails(t, tenantId, current.id, contact_details);
    });
    return recordOrganisationEvents(trx, tenantId, 'organisation.updated', row.id, details);
  });
}
