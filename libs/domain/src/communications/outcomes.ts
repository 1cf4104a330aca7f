/**
 * What became of a communication the engine handed to its provider (docs/api.md section 13),
 * each in a transaction of its own that locks the debt, then the communication (the lock order of
 * every writer): accepted (`sent`; the debt's first accepted communication moves it from
 * `analysing` to `contacted` and starts the strategy's days), or failed with the reason. A send
 * whose outcome was lost (the worker stopped after handing it over) is reconciled with the
 * provider or marked `failed`, never sent again blindly.
 */
import type { Knex } from '@dms/db';
import { mergeMetadata } from '../kernel/metadata.js';
import { SYSTEM_ACTOR, lockDebt, moveLockedDebt } from '../debts/moves.js';
import { setEngineState } from '../debts/store.js';
import type { DebtRow } from '../debts/schemas.js';
import { findOwned } from '../kernel/scoped.js';
import { organisationsResource } from '../organisations/resource.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import { strategyOf } from '../organisations/strategy.js';
import { stepDueAt } from './engine.js';
import type { CommunicationRow } from './schemas.js';
import { loadCommunication, moveCommunication } from './store.js';

/** What the provider answered for an accepted message. */
export interface Accepted {
  provider: string;
  providerReference: string;
  details: Record<string, string | number | boolean | string[]>;
}

/**
 * Records an accepted send on the locked debt and communication: the communication `sent` with
 * its provider and reference; a debt in `analysing` moves to `contacted` (first contact,
 * `contacted_at` = `now`), and its next step is scheduled from the first contact.
 * @returns false when the communication had already left `queued` (reconciled meanwhile)
 */
export async function applySent(trx: Knex.Transaction, debt: DebtRow, row: CommunicationRow, accepted: Accepted, now: Date): Promise<boolean> {
  const details = Object.fromEntries(Object.entries(accepted.details).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
  const moved = await moveCommunication(trx, row, 'send', {
    provider: accepted.provider,
    provider_reference: accepted.providerReference,
    metadata: JSON.stringify(mergeMetadata(row.metadata, details)),
  });
  if (!moved) return false;
  let contactedAt = debt.contacted_at;
  if (debt.status === 'analysing') {
    await moveLockedDebt(trx, debt.tenant_id, debt, 'contact', { whodunnit: SYSTEM_ACTOR, context: `communication.sent: ${row.id}` });
    contactedAt = contactedAt ?? now;
    await setEngineState(trx, debt.tenant_id, debt.id, { contacted_at: contactedAt });
  }
  const organisation = await findOwned<OrganisationRow>(trx, organisationsResource, debt.tenant_id, debt.organisation_id);
  await setEngineState(trx, debt.tenant_id, debt.id, { engine_due_at: stepDueAt(strategyOf(organisation.configurations), debt.engine_step, contactedAt, now) });
  return true;
}

/**
 * Records a failed send on the locked debt and communication (`failed` with `reason`); the debt's
 * next step is due at once. A message that certainly never left (`countsAsContact` false) no
 * longer counts toward the 7-day limit.
 */
export async function applySendFailure(trx: Knex.Transaction, debt: DebtRow, row: CommunicationRow, reason: string, countsAsContact: boolean): Promise<void> {
  const moved = await moveCommunication(trx, row, 'fail', { status_reason: reason, ...(countsAsContact ? {} : { handed_at: null }) });
  if (moved) await setEngineState(trx, debt.tenant_id, debt.id, { engine_due_at: 'now' });
}

/** Locks the communication's debt, then the communication, and runs `apply` on both. */
function underLocks<T>(db: Knex, sent: CommunicationRow, apply: (trx: Knex.Transaction, debt: DebtRow, row: CommunicationRow) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    const debt = await lockDebt(trx, sent.tenant_id, sent.debt_id);
    return apply(trx, debt, await loadCommunication(trx, sent.tenant_id, sent.id, true));
  });
}

/** `applySent` in a transaction of its own. */
export function recordSent(db: Knex, sent: CommunicationRow, accepted: Accepted, now: Date): Promise<boolean> {
  return underLocks(db, sent, (trx, debt, row) => applySent(trx, debt, row, accepted, now));
}

/** `applySendFailure` in a transaction of its own. */
export function recordSendFailure(db: Knex, sent: CommunicationRow, reason: string, countsAsContact: boolean): Promise<void> {
  return underLocks(db, sent, (trx, debt, row) => applySendFailure(trx, debt, row, reason, countsAsContact));
}
