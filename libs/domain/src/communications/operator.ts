/**
 * The operator's acts on communications and contact details (docs/api.md section 12), each
 * recording `whodunnit: operator:<client id>`:
 * - classify an inbound communication: `query` moves its debt to `queried`, `dispute` to
 *   `disputed`, `other` records the classification alone;
 * - mark a contact detail `undeliverable`: the engine no longer uses it, and each debt of the
 *   customer being worked with no usable detail left moves to `enriching` or `contact_failed`.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { contactDetailsResource } from '../contact-details/resource.js';
import type { ContactDetail, ContactDetailRow } from '../contact-details/schemas.js';
import { updateContactDetail } from '../customers/contacts.js';
import { lockDebt, moveLockedDebt } from '../debts/moves.js';
import { debtsResource } from '../debts/resource.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { failIfNoDetailLeft } from './inbound.js';
import type { Communication, CommunicationClassify } from './schemas.js';
import { loadCommunication } from './lookups.js';
import { classifyRow } from './moves.js';
import { toCommunication } from './store.js';

const MOVES = { query: 'query', dispute: 'dispute' } as const;

/**
 * `POST /operator/communications/{id}/classify`.
 * @returns the communication with its classification
 * @throws ApiError 404 `resource_missing`; 409 `invalid_state_transition` for an outbound
 *   communication, or when the debt's status does not allow the move (nothing is written)
 */
export async function classifyCommunication(db: Knex, tenantId: string, id: string, input: CommunicationClassify, whodunnit: string): Promise<Communication> {
  const found = await loadCommunication(db, tenantId, id);
  return db.transaction(async (trx) => {
    const debt = await lockDebt(trx, tenantId, found.debt_id);
    const row = await loadCommunication(trx, tenantId, id, true);
    if (row.direction !== 'inbound')
      throw new ApiError('invalid_state_transition', `Communication '${id}' is outbound; only inbound communications are classified.`);
    const classified = await classifyRow(trx, row, input.as);
    if (input.as !== 'other') {
      await moveLockedDebt(trx, tenantId, debt, MOVES[input.as], {
        whodunnit,
        reason: input.reason ?? null,
        context: `communication classified as ${input.as}: ${id}`,
      });
    }
    return toCommunication(classified);
  });
}

/**
 * `POST /operator/contact_details/{id}/undeliverable`.
 * @returns the contact detail, now `undeliverable`
 * @throws ApiError 404 `resource_missing`; 409 `invalid_state_transition` for a deleted detail
 */
export async function markDetailUndeliverable(db: Knex, tenantId: string, id: string, whodunnit: string): Promise<ContactDetail> {
  const found = await findOwned<ContactDetailRow>(db, contactDetailsResource, tenantId, id);
  const detail = await updateContactDetail(db, tenantId, found.customer_id, id, { status: 'undeliverable', metadata: { undeliverable_by: whodunnit } });
  const worked: Array<{ id: string }> = await tenantRows(db, debtsResource, tenantId)
    .where('debts.customer_id', found.customer_id)
    .whereIn('debts.status', ['analysing', 'contacted'])
    .select('debts.id');
  for (const { id: debtId } of worked) {
    await db.transaction(async (trx) => failIfNoDetailLeft(trx, await lockDebt(trx, tenantId, debtId), whodunnit));
  }
  return detail;
}
