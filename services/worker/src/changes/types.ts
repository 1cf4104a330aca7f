/**
 * What every time-driven change of the worker looks like (docs/api.md section 9), so the loop in
 * worker.ts runs them alike: claim one due row under `FOR UPDATE SKIP LOCKED`, apply the change
 * through the domain library's functions (events through the outbox), in the caller's transaction.
 */
import type { Knex } from '@dms/db';
import type { Clock } from './clock.js';

/** Names of the changes, as metrics and logs label them. */
export type ChangeName = 'instalment_missed' | 'pause_ended' | 'plan_started' | 'debt_taken_in' | 'strategy_step' | 'send_reconciled';

/** The outcome of one attempt: `none` when nothing is due (or all due rows are locked by others). */
export type ChangeOutcome =
  | { kind: 'none' }
  | { kind: 'skipped'; debt: string }
  | {
      kind: 'made';
      debt: string;
      tenant: string;
      context: string;
      /** Work that must follow the commit (handing a communication to its provider): run once the change is durable. */
      afterCommit?: () => Promise<void>;
    };

/** One kind of time-driven change. */
export interface TimedChange {
  name: ChangeName;
  /**
   * Claims at most one due row and changes it in `trx`.
   * @param tenantIds only these tenants (empty: all)
   */
  applyOne(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<ChangeOutcome>;
}
