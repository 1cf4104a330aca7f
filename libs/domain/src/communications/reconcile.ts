/**
 * Reconciliation of a send whose outcome the worker lost (docs/api.md section 13): the worker was
 * stopped between marking a communication handed over and recording what its provider answered.
 * The provider is asked (`Reconciliation` of @dms/channels) and its answer decides, here alone:
 * - `sent`: the provider has the message: recorded as accepted, with the provider's reference;
 * - `not_found`: the message never reached the provider: handed over again now (that is not a
 *   second send);
 * - `ask_later`: the provider cannot tell yet: asked again after the time it names;
 * - `unknown`: the provider cannot be asked (SMTP): `failed` with the reason, never sent again.
 */
import type { Knex } from '@dms/db';
import type { DebtRow } from '../debts/schemas.js';
import { deferCommunication, recordOutcomes, type SendOutcome } from './outcomes.js';
import type { CommunicationRow } from './schemas.js';
import { tenantRows } from '../kernel/scoped.js';
import { communicationsResource } from './resource.js';

/** A provider's answer about a lost send (the `Reconciliation` type of @dms/channels). */
export type ProviderAnswer =
  | { outcome: 'sent'; providerReference: string; details: Record<string, string> }
  | { outcome: 'not_found' }
  | { outcome: 'ask_later'; retryAfterSeconds: number; reason: string }
  | { outcome: 'unknown'; reason: string };

/** What reconciling a lost send does (see the module doc). */
export type ReconcileDecision =
  | { kind: 'record'; outcome: SendOutcome; context: string }
  | { kind: 'hand_over_again'; at: Date; reason: string; context: string }
  | { kind: 'ask_later'; at: Date; reason: string; context: string };

/**
 * Decides what to do with the lost send of communication `row`, handed over at `row.handed_at`,
 * given its provider's `answer` (null: no provider configured for its channel), at the engine's
 * clock `now`. Pure.
 */
export function reconcileDecision(
  row: Pick<CommunicationRow, 'id' | 'handed_at' | 'sending_at'>,
  provider: string | null,
  answer: ProviderAnswer | null,
  now: Date,
): ReconcileDecision {
  const handedAt = row.handed_at ?? row.sending_at ?? now;
  if (!answer || !provider) {
    const reason = 'outcome unknown after the worker stopped: no provider is configured for the channel; not sent again';
    return { kind: 'record', outcome: { kind: 'unknown', reason, handedAt }, context: `reconciled ${row.id}: no provider, failed` };
  }
  switch (answer.outcome) {
    case 'sent':
      return {
        kind: 'record',
        outcome: { kind: 'sent', accepted: { provider, providerReference: answer.providerReference, details: answer.details }, handedAt },
        context: `reconciled ${row.id}: the provider has it`,
      };
    case 'not_found':
      return {
        kind: 'hand_over_again',
        at: now,
        reason: 'reconciled: the provider never received it (the worker stopped before the hand-over); handed over again',
        context: `reconciled ${row.id}: never reached the provider, handed over again`,
      };
    case 'ask_later':
      return {
        kind: 'ask_later',
        at: new Date(now.getTime() + Math.max(1, answer.retryAfterSeconds) * 1000),
        reason: `reconciliation: ${answer.reason}; asked again later`,
        context: `reconciled ${row.id}: the provider cannot tell yet, asking again in ${answer.retryAfterSeconds} s`,
      };
    case 'unknown':
      return {
        kind: 'record',
        outcome: { kind: 'unknown', reason: `outcome unknown after the worker stopped: ${answer.reason}; not sent again`, handedAt },
        context: `reconciled ${row.id}: outcome unknown, failed`,
      };
  }
}

/**
 * Applies `decision` to the lost send `row` of the debt the caller's transaction `trx` has locked,
 * in `trx` (a recorded outcome through `recordOutcomes`, in a savepoint of it).
 */
export async function applyReconciliation(trx: Knex.Transaction, debt: DebtRow, row: CommunicationRow, decision: ReconcileDecision): Promise<void> {
  if (decision.kind === 'hand_over_again') return deferCommunication(trx, row, decision.at, decision.reason);
  if (decision.kind === 'ask_later') {
    await tenantRows(trx, communicationsResource, debt.tenant_id)
      .where({ 'communications.id': row.id, 'communications.status': 'queued' })
      .update({ next_attempt_at: decision.at, status_reason: decision.reason, updated_at: trx.fn.now() });
    return;
  }
  await recordOutcomes(trx, [{ sent: row, outcome: decision.outcome }]);
}
