/**
 * The collection engine's changes (docs/api.md sections 12 and 13), run by the worker's loop like
 * its time-driven changes: each claims one debt with `FOR UPDATE SKIP LOCKED` (so two workers
 * never work one debt at once), decides through the domain (@dms/domain/communications) in one
 * transaction with its events (outbox), and hands a communication to its provider only after that
 * transaction committed. The engine's clock is the debt's tenant's (`tenant_now`) plus the
 * worker's offset.
 * - `debt_taken_in`: `prepared`, `adjusted`, `resumed` debts, and `enriching` or `contact_failed`
 *   ones whose customer has a contact detail added or changed since;
 * - `strategy_step`: debts being worked whose next step is due;
 * - `send_reconciled`: communications handed over more than `ENGINE_RECONCILE_AFTER_SECONDS` ago
 *   whose outcome was never recorded: asked of the provider, else failed, never resent blindly.
 * A worker killed before a commit leaves nothing (the transaction rolls back) and another redoes
 * the change; one killed after a hand-over leaves a `queued` communication for reconciliation.
 */
import type { Channels } from '@dms/channels';
import type { Knex } from '@dms/db';
import { acrossTenants } from '@dms/domain/kernel';
import { debtsResource, type DebtRow } from '@dms/domain/debts';
import {
  INTAKE_STATUSES,
  STEP_STATUSES,
  USABLE_DETAIL_STATUSES,
  WAITING_FOR_DETAIL_STATUSES,
  analyseDebt,
  applySendFailure,
  applySent,
  runStep,
  unsettledOf,
  type Links,
} from '@dms/domain/communications';
import type { Logger } from '@dms/logger';
import type { Clock } from '../changes/clock.js';
import type { ChangeOutcome, TimedChange } from '../changes/types.js';
import { sendCommunication } from './send.js';

/** What the engine needs beyond the database. */
export interface EngineDeps {
  db: Knex;
  log: Logger;
  channels: Channels;
  links: Links;
  /** Seconds after a hand-over before a still-`queued` communication is reconciled. */
  reconcileAfterSeconds: number;
}

type Claimed = DebtRow & { engine_now: Date };

/** Claims one debt of `narrow`, with the engine's clock for it. */
async function claim(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[], narrow: (q: Knex.QueryBuilder) => void): Promise<Claimed | undefined> {
  // The engine's clock for the debt: its tenant's `tenant_now` plus the worker's offset.
  const q = acrossTenants(trx, debtsResource, tenantIds).select(
    'debts.*',
    trx.raw('tenant_now(debts.tenant_id) + make_interval(secs => ?) AS engine_now', [clock.offsetSeconds]),
  );
  narrow(q);
  return (await q.limit(1).forUpdate('debts').skipLocked().first()) as Claimed | undefined;
}

/** The engine's change kinds, given its channels. */
export function engineChanges(deps: EngineDeps): TimedChange[] {
  const intake: TimedChange = {
    name: 'debt_taken_in',
    async applyOne(trx, clock, tenantIds): Promise<ChangeOutcome> {
      const debt = await claim(trx, clock, tenantIds, (q) =>
        q
          .where((w) =>
            w
              .whereIn('debts.status', INTAKE_STATUSES)
              .orWhere((waiting) =>
                waiting
                  .whereIn('debts.status', WAITING_FOR_DETAIL_STATUSES)
                  .whereExists((d) =>
                    d
                      .select(trx.raw('1'))
                      .from('customer_contact_details as d')
                      .whereRaw('d.customer_id = debts.customer_id')
                      .whereIn('d.status', USABLE_DETAIL_STATUSES)
                      .whereRaw('d.updated_at > debts.status_updated_at'),
                  ),
              ),
          )
          .orderBy('debts.status_updated_at'),
      );
      if (!debt) return { kind: 'none' };
      const outcome = await analyseDebt(trx, debt, debt.engine_now);
      return { kind: 'made', object: debt.id, tenant: debt.tenant_id, context: outcome.context };
    },
  };

  const step: TimedChange = {
    name: 'strategy_step',
    async applyOne(trx, clock, tenantIds): Promise<ChangeOutcome> {
      const debt = await claim(trx, clock, tenantIds, (q) =>
        q
          .whereIn('debts.status', STEP_STATUSES)
          .whereNotNull('debts.engine_due_at')
          .whereRaw('debts.engine_due_at <= tenant_now(debts.tenant_id) + make_interval(secs => ?)', [clock.offsetSeconds])
          .orderBy('debts.engine_due_at'),
      );
      if (!debt) return { kind: 'none' };
      const outcome = await runStep(trx, debt, debt.engine_now, deps.links);
      const made = { kind: 'made', object: debt.id, tenant: debt.tenant_id, context: outcome.context } as const;
      if (outcome.kind !== 'send') return made;
      return { ...made, afterCommit: () => sendCommunication(deps, outcome.communication, outcome.to, debt.engine_now) };
    },
  };

  const reconcile: TimedChange = {
    name: 'send_reconciled',
    async applyOne(trx, clock, tenantIds): Promise<ChangeOutcome> {
      const debt = await claim(trx, clock, tenantIds, (q) =>
        q
          .join('communications as c', (j) => j.on('c.debt_id', 'debts.id').andOn('c.tenant_id', 'debts.tenant_id'))
          .where('c.status', 'queued')
          .whereRaw('c.handed_at < tenant_now(debts.tenant_id) + make_interval(secs => ?) - make_interval(secs => ?)', [
            clock.offsetSeconds,
            deps.reconcileAfterSeconds,
          ]),
      );
      if (!debt) return { kind: 'none' };
      const before = new Date(debt.engine_now.getTime() - deps.reconcileAfterSeconds * 1000);
      const row = await unsettledOf(trx, debt.tenant_id, debt.id, before);
      if (!row) return { kind: 'skipped', object: debt.id };
      const provider = deps.channels[row.delivery_method];
      const answer = provider
        ? await provider.reconcile({ communicationId: row.id, attemptedAt: row.handed_at! })
        : ({ outcome: 'unknown', reason: 'no provider is configured for the channel' } as const);
      let context: string;
      if (answer.outcome === 'sent') {
        await applySent(trx, debt, row, { provider: provider!.name, providerReference: answer.providerReference, details: answer.details }, debt.engine_now);
        context = `reconciled ${row.id}: the provider has it`;
      } else if (answer.outcome === 'not_found') {
        await applySendFailure(trx, debt, row, 'reconciled: the provider never received it (the worker stopped before the hand-over)', false);
        context = `reconciled ${row.id}: never reached the provider`;
      } else {
        const reason = answer.outcome === 'ask_later' ? answer.reason : answer.reason;
        await applySendFailure(trx, debt, row, `outcome unknown after the worker stopped: ${reason}; not sent again`, true);
        context = `reconciled ${row.id}: outcome unknown, failed`;
      }
      return { kind: 'made', object: debt.id, tenant: debt.tenant_id, context };
    },
  };

  return [intake, step, reconcile];
}
