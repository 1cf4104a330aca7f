/**
 * What became of a communication the engine handed to its provider (docs/api.md section 13),
 * recorded in a transaction that locks the debt, then the communication (the lock order of every
 * writer), one per communication or one per batch of hand-overs (`recordOutcomes`): accepted (`sent`; the debt's first accepted communication moves it from
 * `analysing` to `contacted` and starts the strategy's days), or failed with the reason. A send
 * whose outcome was lost (the worker stopped after handing it over) is reconciled with the
 * provider or marked `failed`, never sent again blindly.
 */
import type { Knex } from '@dms/db';
import { mergeMetadata } from '../kernel/metadata.js';
import { SYSTEM_ACTOR, lockDebt, moveLockedDebt, type StatusNote } from '../debts/moves.js';
import { deferEngineState, flushEngineState, setEngineState, type EngineColumns } from '../debts/engine-state.js';
import type { DebtRow } from '../debts/schemas.js';
import { debtsResource } from '../debts/resource.js';
import { moveLockedDebts, type LockedMove } from '../debts/set-wise.js';
import type { CollectionStrategy } from '../organisations/strategy.js';
import { deferEvents, flushEvents } from '../kernel/outbox.js';
import { acrossTenants } from '../kernel/scoped.js';
import { stepDueAt } from './engine.js';
import { directReads, type EngineReads } from './reads.js';
import { communicationsResource } from './resource.js';
import type { CommunicationRow } from './schemas.js';
import { loadCommunication, moveCommunication, moveCommunications } from './store.js';

/** What the provider answered for an accepted message. */
export interface Accepted {
  provider: string;
  providerReference: string;
  details: Record<string, string | number | boolean | string[]>;
}

/** The columns an accepted send writes on its communication. */
function sentChanges(row: CommunicationRow, accepted: Accepted): Record<string, unknown> {
  const details = Object.fromEntries(Object.entries(accepted.details).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
  return { provider: accepted.provider, provider_reference: accepted.providerReference, metadata: JSON.stringify(mergeMetadata(row.metadata, details)) };
}

/**
 * What an accepted send of `row` writes on its debt: from `analysing`, the `contact` move with the
 * first contact's time; in any case when the next step is due, counted from the first contact.
 */
function afterSent(debt: DebtRow, row: CommunicationRow, strategy: CollectionStrategy, now: Date): { contact: StatusNote | null; state: EngineColumns } {
  if (debt.status !== 'analysing') return { contact: null, state: { engine_due_at: stepDueAt(strategy, debt.engine_step, debt.contacted_at, now) } };
  const contactedAt = debt.contacted_at ?? now;
  return {
    contact: { whodunnit: SYSTEM_ACTOR, context: `communication.sent: ${row.id}` },
    state: { contacted_at: contactedAt, engine_due_at: stepDueAt(strategy, debt.engine_step, contactedAt, now) },
  };
}

/**
 * Records an accepted send on the locked debt and communication: the communication `sent` with
 * its provider and reference; a debt in `analysing` moves to `contacted` (first contact,
 * `contacted_at` = `now`), and its next step is scheduled from the first contact.
 * @param reads where the debt's strategy comes from (`directReads`, or a batch's cache)
 * @returns false when the communication had already left `queued` (reconciled meanwhile)
 */
export async function applySent(
  trx: Knex.Transaction,
  debt: DebtRow,
  row: CommunicationRow,
  accepted: Accepted,
  now: Date,
  reads: Pick<EngineReads, 'strategyFor'> = directReads(trx),
): Promise<boolean> {
  const moved = await moveCommunication(trx, row, 'send', sentChanges(row, accepted));
  if (!moved) return false;
  const { contact, state } = afterSent(debt, row, (await reads.strategyFor(debt)).strategy, now);
  if (contact) await moveLockedDebt(trx, debt.tenant_id, debt, 'contact', contact, state);
  else await setEngineState(trx, debt.tenant_id, debt.id, state);
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

/** What became of one handed-over communication. */
export type SendOutcome =
  | { kind: 'sent'; accepted: Accepted; /** the engine's clock when the communication was made */ now: Date }
  | { kind: 'failed'; reason: string; countsAsContact: boolean };

/**
 * Records the outcomes of many hand-overs in one transaction (the worker's batches, docs/api.md
 * section 13): locks their debts, then their communications, each set in one statement ordered by
 * id (the lock order of every writer: debt, then communication; ids in order, so two batches
 * never wait on each other in a cycle), applies `applySent` or `applySendFailure` to each, and
 * writes the events set-wise. A communication whose debt is gone is left as it is.
 * @returns how many outcomes were recorded
 */
export async function recordOutcomes(db: Knex, outcomes: ReadonlyArray<{ sent: CommunicationRow; outcome: SendOutcome }>): Promise<number> {
  if (!outcomes.length) return 0;
  return db.transaction(async (trx) => {
    deferEvents(trx);
    deferEngineState(trx);
    const debtIds = [...new Set(outcomes.map((o) => o.sent.debt_id))].sort();
    const debts = new Map(
      ((await acrossTenants(trx, debtsResource).whereIn('debts.id', debtIds).orderBy('debts.id').forUpdate()) as DebtRow[]).map((d) => [d.id, d]),
    );
    const rows = new Map(
      (
        (await acrossTenants(trx, communicationsResource)
          .whereIn('communications.id', outcomes.map((o) => o.sent.id).sort())
          .orderBy('communications.id')
          .forUpdate()) as CommunicationRow[]
      ).map((r) => [r.id, r]),
    );
    const strategies = new Map<string, ReturnType<EngineReads['strategyFor']>>();
    const reads: Pick<EngineReads, 'strategyFor'> = {
      strategyFor(debt) {
        let s = strategies.get(debt.organisation_id);
        if (!s) strategies.set(debt.organisation_id, (s = directReads(trx).strategyFor(debt)));
        return s;
      },
    };
    const sent: Array<{ debt: DebtRow; row: CommunicationRow; accepted: Accepted; now: Date }> = [];
    let recorded = 0;
    for (const { sent: handed, outcome } of outcomes) {
      const debt = debts.get(handed.debt_id);
      const row = rows.get(handed.id);
      if (!debt || !row || debt.tenant_id !== handed.tenant_id || row.tenant_id !== handed.tenant_id) continue;
      recorded += 1;
      if (outcome.kind === 'sent') sent.push({ debt, row, accepted: outcome.accepted, now: outcome.now });
      else await applySendFailure(trx, debt, row, outcome.reason, outcome.countsAsContact);
    }
    // Accepted sends set-wise: the communications `sent`, then the moves of their debts to `contacted`.
    const moved = await moveCommunications(
      trx,
      sent.map((s) => ({ row: s.row, move: 'send' as const, changes: sentChanges(s.row, s.accepted) })),
    );
    const contacts: LockedMove[] = [];
    for (const [i, s] of sent.entries()) {
      if (!moved[i]) continue;
      const { contact, state } = afterSent(s.debt, s.row, (await reads.strategyFor(s.debt)).strategy, s.now);
      if (contact) contacts.push({ locked: s.debt, move: 'contact', note: contact, state });
      else await setEngineState(trx, s.debt.tenant_id, s.debt.id, state);
    }
    await moveLockedDebts(trx, contacts);
    await flushEngineState(trx);
    await flushEvents(trx);
    return recorded;
  });
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
