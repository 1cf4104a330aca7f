/**
 * What every time-driven change of the worker looks like (docs/api.md section 9), so the loop in
 * worker.ts runs them alike: claim one due row under `FOR UPDATE SKIP LOCKED`, apply the change
 * through the domain library's functions (events through the outbox), in the caller's transaction.
 */
import type { Knex } from '@dms/db';
import type { Clock } from './clock.js';

/** Names of the changes, as metrics and logs label them. */
export type ChangeName =
  | 'instalment_missed'
  | 'pause_ended'
  | 'payout_run'
  | 'plan_started'
  | 'debt_taken_in'
  | 'strategy_step'
  | 'send_retried'
  | 'send_reconciled'
  | 'customer_erased'
  | 'instalment_charged'
  | 'promise_charged'
  | 'promise_reminded';

/**
 * The outcome of one attempt: `none` when nothing is due (or all due rows are locked by others).
 * `object` is the id of what changed (a debt, or a payout), or of what was looked at (`skipped`).
 */
export type ChangeOutcome =
  | { kind: 'none' }
  | { kind: 'skipped'; object: string }
  | {
      kind: 'made';
      object: string;
      tenant: string;
      context: string;
      /** Work that must follow the commit (handing a communication to its provider): run once the change is durable. */
      afterCommit?: () => Promise<void>;
    };

/** The outcome of one batch: one outcome per claimed row (none: nothing due), and the work that follows its commit. */
export interface BatchOutcome {
  outcomes: ChangeOutcome[];
  /** Work that must follow the commit (handing the batch's communications to their providers). */
  afterCommit?: () => Promise<void>;
}

/** One kind of time-driven change. */
export interface TimedChange {
  name: ChangeName;
  /**
   * Claims at most one due row and changes it in `trx`.
   * @param tenantIds only these tenants (empty: all)
   */
  applyOne(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<ChangeOutcome>;
  /**
   * Claims up to `limit` due rows in one statement and changes each in `trx` (the collection
   * engine's); the worker uses it when present, and `applyOne` when a batch fails.
   */
  applyBatch?(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[], limit: number): Promise<BatchOutcome>;
  /**
   * When the longest-waiting due row became due (null when none is due), for the lag gauges
   * (lag.ts); reads the same rows as `applyOne` claims, without locking. A change without it has
   * no lag series.
   */
  oldestDue?(trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]): Promise<Date | null>;
  /** The gauge its lag is shown in: `engine` (`dms_engine_lag_seconds`, the default) or `payout` (`dms_payout_lag_seconds`). */
  lagMetric?: 'engine' | 'payout';
}
