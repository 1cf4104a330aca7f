/**
 * Communications (docs/api.md section 13): finding rows. One of a tenant by id, the outbound one
 * a provider callback names (across tenants), and the one a stopped worker left handed over
 * without an outcome (to be reconciled).
 */
import type { Knex } from '@dms/db';
import { acrossTenants, findOwned, tenantRows } from '../kernel/scoped.js';
import { communicationsResource as communications } from './resource.js';
import type { CommunicationRow } from './schemas.js';

/**
 * Loads the tenant's communication `id`.
 * @throws ApiError 404 `resource_missing`
 */
export function loadCommunication(db: Knex | Knex.Transaction, tenantId: string, id: string, forUpdate = false): Promise<CommunicationRow> {
  return findOwned<CommunicationRow>(db, communications, tenantId, id, { forUpdate });
}

/**
 * Finds the outbound communication a provider callback names, across tenants (a callback names
 * no tenant; its signature was checked first): by our id when the provider echoes it, else by the
 * provider's reference.
 */
export async function findOutboundFor(
  db: Knex | Knex.Transaction,
  ref: { communicationId: string | null; providerReference: string },
): Promise<CommunicationRow | undefined> {
  const q = acrossTenants(db, communications).where('communications.direction', 'outbound');
  if (ref.communicationId) q.where('communications.id', ref.communicationId);
  else q.where('communications.provider_reference', ref.providerReference);
  return (await q.first()) as CommunicationRow | undefined;
}

/**
 * The oldest outbound communication of the locked debt `debtId` still `queued` and marked handed
 * over since before `before` (the worker stopped between handing it over and recording the
 * outcome), not waiting to be asked again after `now`, locked.
 */
export async function unsettledOf(trx: Knex.Transaction, tenantId: string, debtId: string, before: Date, now: Date): Promise<CommunicationRow | undefined> {
  return (await tenantRows(trx, communications, tenantId)
    .where({ 'communications.debt_id': debtId, 'communications.status': 'queued' })
    .where('communications.sending_at', '<', before)
    .where((q) => q.whereNull('communications.next_attempt_at').orWhere('communications.next_attempt_at', '<=', now))
    .orderBy('communications.seq')
    .forUpdate()
    .first()) as CommunicationRow | undefined;
}
