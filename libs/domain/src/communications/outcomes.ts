/**
 * What became of a communication the engine handed to its provider (docs/api.md section 13),
 * recorded in a transaction that locks the debt, then the communication (the lock order of every
 * writer): several hand-overs' outcomes at once (`recordOutcomes`, the worker's group commit of
 * the outcomes its send lanes have just learnt), or one reconciled send (`applyReconciliation`).
 * - `sent`: the provider accepted it; the debt's first accepted communication moves it from
 *   `analysing` to `contacted` and starts the strategy's days at its hand-over.
 * - `deferred`: the provider refused for now (SMTP 4xx, no connection, SMS throttling); the
 *   communication stays `queued` and waits for its next attempt, not counted toward the 7-day
 *   limit meanwhile; the step is not used up.
 * - `refused`: a permanent refusal; the communication is `failed` with the reason and, when the
 *   refusal was of the recipient, its contact detail `undeliverable`; the next step is due.
 * - `unknown`: the message may have left (the session broke after the data was sent); it is
 *   `failed`, never sent again, and the debt's next step counts its days from that hand-over, as
 *   if it had been the first contact (a later step never becomes the customer's first message).
 * A message outside the strategy (`step` null: a pay-later promise's reminder) changes only itself
 * (and, refused for its recipient, the contact detail): never its debt's status nor its steps' days.
 */
import type { Knex } from '@dms/db';
import { mergeMetadata } from '../kernel/metadata.js';
import { SYSTEM_ACTOR, type StatusNote } from '../debts/moves.js';
import { flushEngineState, setEngineState, type EngineColumns } from '../debts/engine-state.js';
import type { DebtRow } from '../debts/schemas.js';
import { debtsResource } from '../debts/resource.js';
import { moveLockedDebts, type LockedMove } from '../debts/set-wise.js';
import type { CollectionStrategy } from '../organisations/strategy.js';
import { flushEvents } from '../kernel/outbox.js';
import { batchWrites } from '../kernel/write-batch.js';
import { acrossTenants, tenantRows } from '../kernel/scoped.js';
import { stepDueAt } from './engine.js';
import { markUndeliverable } from './inbound.js';
import { directReads, type EngineReads } from './reads.js';
import { communicationsResource } from './resource.js';
import type { CommunicationRow } from './schemas.js';
import { moveCommunication, moveCommunications } from './moves.js';

/** What the provider answered for an accepted message. */
export interface Accepted {
  provider: string;
  providerReference: string;
  details: Record<string, string | number | boolean | string[]>;
}

/** What became of one hand-over (see the module doc). `handedAt` is the engine's clock when it was marked handed over. */
export type SendOutcome =
  | { kind: 'sent'; accepted: Accepted; handedAt: Date }
  | { kind: 'deferred'; reason: string; retryAt: Date }
  | { kind: 'refused'; reason: string; /** the refusal was of the recipient: its detail is unusable */ undeliverable: boolean }
  | { kind: 'unknown'; reason: string; handedAt: Date };

/** The columns an accepted send writes on its communication. */
function sentChanges(row: CommunicationRow, accepted: Accepted): Record<string, unknown> {
  const details = Object.fromEntries(Object.entries(accepted.details).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
  return {
    provider: accepted.provider,
    provider_reference: accepted.providerReference,
    metadata: JSON.stringify(mergeMetadata(row.metadata, details)),
    sending_at: null,
  };
}

/**
 * What a send of `row` handed over at `handedAt` (accepted, or perhaps accepted) writes on its
 * debt: the first contact's time when there was none, and when the next step is due, counted from
 * the first contact; from `analysing`, the `contact` move when it was accepted.
 */
function afterHandedOver(debt: DebtRow, row: CommunicationRow, strategy: CollectionStrategy, handedAt: Date, accepted: boolean) {
  const contactedAt = debt.contacted_at ?? handedAt;
  const state: EngineColumns = { contacted_at: contactedAt, engine_due_at: stepDueAt(strategy, debt.engine_step, contactedAt, handedAt) };
  const contact: StatusNote | null = accepted && debt.status === 'analysing' ? { whodunnit: SYSTEM_ACTOR, context: `communication.sent: ${row.id}` } : null;
  return { contact, state };
}

/** Records a refusal or an unknown outcome on the locked debt and communication (see the module doc). */
async function applyFailure(
  trx: Knex.Transaction,
  debt: DebtRow,
  row: CommunicationRow,
  outcome: Extract<SendOutcome, { kind: 'refused' | 'unknown' }>,
  reads: Pick<EngineReads, 'strategyFor'>,
): Promise<void> {
  const counts = outcome.kind === 'unknown';
  const moved = await moveCommunication(trx, row, 'fail', { status_reason: outcome.reason, sending_at: null, ...(counts ? {} : { handed_at: null }) });
  if (!moved) return;
  // A message outside the strategy (step null) leaves the debt's steps as they are.
  const ofStrategy = row.step !== null;
  if (outcome.kind === 'unknown') {
    if (!ofStrategy) return;
    const { state } = afterHandedOver(debt, row, (await reads.strategyFor(debt)).strategy, outcome.handedAt, false);
    await setEngineState(trx, debt.tenant_id, debt.id, state);
    return;
  }
  if (ofStrategy) await setEngineState(trx, debt.tenant_id, debt.id, { engine_due_at: 'now' });
  if (outcome.undeliverable && row.contact_detail_id) await markUndeliverable(trx, debt, row);
}

/**
 * Puts a locked `queued` communication back to wait for its next hand-over at `at`, with `reason`
 * (kept as it is when undefined); it no longer counts toward the 7-day limit (`handed_at` null)
 * until it is handed over. No event: its status does not change.
 */
export async function deferCommunication(trx: Knex.Transaction, row: CommunicationRow, at: Date, reason?: string): Promise<void> {
  await tenantRows(trx, communicationsResource, row.tenant_id)
    .where({ 'communications.id': row.id, 'communications.status': 'queued' })
    .update({
      sending_at: null,
      handed_at: null,
      next_attempt_at: at,
      ...(reason === undefined ? {} : { status_reason: reason }),
      updated_at: trx.fn.now(),
    });
}

/** A strategy reader that loads each organisation's strategy once for a transaction. */
function cachedStrategies(trx: Knex.Transaction): Pick<EngineReads, 'strategyFor'> {
  const strategies = new Map<string, ReturnType<EngineReads['strategyFor']>>();
  return {
    strategyFor(debt) {
      let s = strategies.get(debt.organisation_id);
      if (!s) strategies.set(debt.organisation_id, (s = directReads(trx).strategyFor(debt)));
      return s;
    },
  };
}

/**
 * Records the outcomes of many hand-overs in one transaction (docs/api.md section 13): locks
 * their debts, then their communications, each set in one statement ordered by id (the lock order
 * of every writer: debt, then communication; ids in order, so two writers never wait on each
 * other in a cycle), records each as the module doc says, accepted ones set-wise, and writes the
 * events set-wise. A communication whose debt is gone, or that is no longer `queued`, is left as it is.
 * @returns how many outcomes were recorded
 */
export async function recordOutcomes(db: Knex, outcomes: ReadonlyArray<{ sent: CommunicationRow; outcome: SendOutcome }>): Promise<number> {
  if (!outcomes.length) return 0;
  return db.transaction(async (outer) => {
    const trx = batchWrites(outer, ['events', 'engineState']);
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
    const reads = cachedStrategies(trx);
    const sent: Array<{ debt: DebtRow; row: CommunicationRow; accepted: Accepted; handedAt: Date }> = [];
    let recorded = 0;
    for (const { sent: handed, outcome } of outcomes) {
      const debt = debts.get(handed.debt_id);
      const row = rows.get(handed.id);
      if (!debt || !row || row.status !== 'queued' || debt.tenant_id !== handed.tenant_id || row.tenant_id !== handed.tenant_id) continue;
      recorded += 1;
      if (outcome.kind === 'sent') sent.push({ debt, row, accepted: outcome.accepted, handedAt: outcome.handedAt });
      else if (outcome.kind === 'deferred') await deferCommunication(trx, row, outcome.retryAt, outcome.reason);
      else await applyFailure(trx, debt, row, outcome, reads);
    }
    // Accepted sends set-wise: the communications `sent`, then the moves of their debts to `contacted`.
    const moved = await moveCommunications(
      trx,
      sent.map((s) => ({ row: s.row, move: 'send' as const, changes: sentChanges(s.row, s.accepted) })),
    );
    const contacts: LockedMove[] = [];
    for (const [i, s] of sent.entries()) {
      if (!moved[i] || s.row.step === null) continue;
      const { contact, state } = afterHandedOver(s.debt, s.row, (await reads.strategyFor(s.debt)).strategy, s.handedAt, true);
      if (contact) contacts.push({ locked: s.debt, move: 'contact', note: contact, state });
      else await setEngineState(trx, s.debt.tenant_id, s.debt.id, state);
    }
    await moveLockedDebts(trx, contacts);
    await flushEngineState(trx);
    await flushEvents(trx);
    return recorded;
  });
}
