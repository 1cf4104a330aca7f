/**
 * The worker's loop (docs/api.md section 9): every `WORKER_POLL_SECONDS` it makes the due
 * time-driven changes, each in a transaction of its own that claims one row with `FOR UPDATE SKIP
 * LOCKED`, changes it through the domain library (@dms/domain) and writes the events through the outbox.
 * Exactly once with several workers: a claimed row is invisible to the others until commit, and
 * after commit it no longer matches (the plan is broken, the debt no longer paused). A worker
 * killed midway rolls back (the connection drops), so the next check of any worker redoes it.
 */
import type { Knex } from '@dms/db';
import type { Logger } from '@dms/logger';
import { inSpanFollowing } from '@dms/telemetry';
import { readClock } from './changes/clock.js';
import { missedInstalments } from './changes/missed-instalments.js';
import { pauseEnds } from './changes/pause-ends.js';
import { retentionErasures } from './changes/retention-erasures.js';
import { payoutRuns } from './changes/payout-runs.js';
import { planStarts } from './changes/plan-starts.js';
import { savedCharges } from './changes/saved-charges.js';
import type { ChargeSaved } from '@dms/domain/portal';
import type { BatchOutcome, ChangeOutcome, TimedChange } from './changes/types.js';
import { ENGINE_CLAIM_LIMIT, engineChanges } from './engine/changes.js';
import type { EngineDeps } from './engine/send.js';
import type { WorkerConfig } from './config.js';
import type { WorkerMetrics } from './metrics.js';

/** The time-driven changes of sections 9, 12 and 14, in the order a check makes them (the collection engine's follow). */
const TIMED: readonly TimedChange[] = [pauseEnds, missedInstalments, planStarts, payoutRuns, retentionErasures];

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Concurrent lanes of the engine's batches: each holds up to two connections (a batch, the previous batch's outcomes), two are left to the rest. */
export const engineLanes = (poolMax: number): number => Math.max(1, Math.min(4, Math.floor((poolMax - 2) / 2)));

/** Runs checks until stopped. */
export class Worker {
  private running = false;
  private loop: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wakeUp: (() => void) | undefined;

  /**
   * Per lane of the engine's batches, the hand-overs of its last batch (and all before them): they
   * run on while the next batches, and the next checks, are decided; the loop waits for them when it stops.
   */
  private readonly following: Array<Promise<void>> = [];

  /** The change kinds each check makes, in order (the lag gauges read the same list). */
  readonly changes: readonly TimedChange[];

  /**
   * @param engine the collection engine's channels and links; without it the worker makes only the time-driven changes
   * @param charge charges a saved payment method through a provider by name; with it the worker charges plans and promises
   */
  constructor(private readonly deps: { db: Knex; cfg: WorkerConfig; log: Logger; metrics: WorkerMetrics; engine?: EngineDeps; charge?: ChargeSaved }) {
    // Charges come before the missed-instalment check: an instalment is charged on its date before it can be missed.
    const timed = deps.charge ? [pauseEnds, ...savedCharges(deps.charge), ...TIMED.filter((c) => c !== pauseEnds)] : TIMED;
    this.changes = deps.engine ? [...timed, ...engineChanges(deps.engine)] : timed;
  }

  /** Starts the loop (first check at once). */
  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  /**
   * Stops after the change in progress commits (no new one starts); resolves when the loop ended.
   * A change still running at `deadlineMs` is left to finish or roll back with the pool's close.
   */
  async stop(deadlineMs: number): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.wakeUp?.();
    await Promise.race([this.loop, sleep(deadlineMs)]);
  }

  /**
   * One check: up to `WORKER_BATCH_SIZE` changes of each kind.
   * @returns how many changes were committed, by kind
   */
  async checkOnce(): Promise<Record<string, number>> {
    const made: Record<string, number> = {};
    for (const change of this.changes) {
      made[change.name] = change.applyBatch ? await this.applyBatches(change) : await this.applyEach(change, this.deps.cfg.WORKER_BATCH_SIZE);
    }
    return made;
  }

  /** Up to `limit` changes of `change`'s kind, one transaction each; how many were made. */
  private async applyEach(change: TimedChange, limit: number): Promise<number> {
    let made = 0;
    for (let i = 0; i < limit && this.running; i++) {
      const outcome = await this.applyOne(change);
      if (outcome.kind === 'none') break;
      if (outcome.kind === 'made') made += 1;
    }
    return made;
  }

  /**
   * Up to `WORKER_BATCH_SIZE` changes of a batch kind (the collection engine's), `ENGINE_CLAIM_LIMIT`
   * per transaction, in `lanes` concurrent lanes (each claims its own debts: `SKIP LOCKED`), so the
   * round trips of one lane overlap another's. In a lane, the work after a batch's commit (its
   * hand-overs) runs while the next batches, of this check or the next, are decided; a lane waits
   * for its previous hand-overs before it starts more. A batch that fails (one debt the domain
   * refuses rolls back the whole batch) is retried one change per transaction, so the others
   * still progress.
   * @returns how many changes were made
   */
  private async applyBatches(change: TimedChange): Promise<number> {
    const { cfg, log } = this.deps;
    let left = cfg.WORKER_BATCH_SIZE;
    let made = 0;
    let failed = false;
    const lane = async (index: number): Promise<void> => {
      while (left > 0 && this.running && !failed) {
        const limit = Math.min(left, ENGINE_CLAIM_LIMIT);
        left -= limit;
        let batch: BatchOutcome;
        try {
          batch = await this.applyBatch(change, limit);
        } catch (err) {
          log.warn({ err, change: change.name }, 'batch failed; one change per transaction');
          failed = true;
          left += limit;
          return;
        }
        left += limit - batch.outcomes.length;
        if (!batch.outcomes.length) return;
        made += batch.outcomes.filter((o) => o.kind === 'made').length;
        if (!batch.afterCommit) continue;
        // This batch's hand-overs start once the lane's previous ones are done, whether they
        // failed or not (its communications are committed `queued`: they must be handed over); a
        // failure of the previous ones fails the check after that.
        const previous = this.following[index] ?? Promise.resolve();
        const following = previous.then(batch.afterCommit, batch.afterCommit);
        following.catch((err: unknown) => log.error({ err, change: change.name }, 'hand-over failed'));
        this.following[index] = following;
        await previous;
      }
    };
    const lanes = await Promise.allSettled(Array.from({ length: engineLanes(cfg.DATABASE_POOL_MAX) }, (_, i) => lane(i)));
    const rejected = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (rejected) throw rejected.reason;
    return failed ? made + (await this.applyEach(change, left)) : made;
  }

  /**
   * One batch of `change`'s kind in one transaction, in a span `worker.<kind>`; its outcomes are
   * counted and logged after the commit: one `changes made` line at info, one `change made` line
   * per change at debug.
   */
  private applyBatch(change: TimedChange, limit: number): Promise<BatchOutcome> {
    const { db, cfg, log, metrics } = this.deps;
    return inSpanFollowing(`worker.${change.name}`, null, {}, async (span) => {
      const batch = await db.transaction(async (trx) => {
        const clock = await readClock(trx, cfg.WORKER_CLOCK_OFFSET_SECONDS);
        const result = await change.applyBatch!(trx, clock, cfg.tenantIds, limit);
        await this.holdForTest(change, result.outcomes);
        return result;
      });
      span.setAttributes({ 'dms.changes': batch.outcomes.length });
      const made = batch.outcomes.filter((o) => o.kind === 'made');
      if (!made.length) return batch;
      metrics.changes.inc({ change: change.name }, made.length);
      // One line per batch at info (a busy engine makes thousands of changes a minute; each is
      // recorded with its context on the debt and in its events); each change at debug.
      log.info({ change: change.name, made: made.length, tenants: [...new Set(made.map((o) => o.tenant))] }, 'changes made');
      if (log.isLevelEnabled('debug')) {
        for (const o of made) log.debug({ change: change.name, object: o.object, tenant: o.tenant, context: o.context }, 'change made');
      }
      return batch;
    });
  }

  /**
   * Test hook (NODE_ENV=test only): the changes are written but not committed; a test kills the
   * process now to show that nothing of them survives.
   */
  private async holdForTest(change: TimedChange, outcomes: readonly ChangeOutcome[]): Promise<void> {
    const { cfg, log } = this.deps;
    const first = outcomes.find((o) => o.kind === 'made');
    if (!first || cfg.WORKER_TEST_HOLD_MS <= 0) return;
    log.info({ change: change.name, object: first.object }, 'holding change before commit');
    await sleep(cfg.WORKER_TEST_HOLD_MS);
  }

  /**
   * One change of `change`'s kind, in a span `worker.<kind>` (docs/api.md section 11): its queries
   * are children of it, and the events it records store its trace context for their deliveries.
   */
  private applyOne(change: TimedChange): Promise<ChangeOutcome> {
    return inSpanFollowing(`worker.${change.name}`, null, {}, async (span) => {
      const outcome = await this.applyInTransaction(change);
      if (outcome.kind === 'made') span.setAttributes({ 'dms.tenant_id': outcome.tenant, 'dms.object_id': outcome.object });
      return outcome;
    });
  }

  private async applyInTransaction(change: TimedChange): Promise<ChangeOutcome> {
    const { db, cfg, log, metrics } = this.deps;
    const outcome = await db.transaction(async (trx) => {
      const clock = await readClock(trx, cfg.WORKER_CLOCK_OFFSET_SECONDS);
      const result = await change.applyOne(trx, clock, cfg.tenantIds);
      await this.holdForTest(change, [result]);
      return result;
    });
    if (outcome.kind === 'made') {
      metrics.changes.inc({ change: change.name });
      log.info({ change: change.name, object: outcome.object, tenant: outcome.tenant, context: outcome.context }, 'change made');
      await outcome.afterCommit?.();
    }
    return outcome;
  }

  private async run(): Promise<void> {
    const { log, metrics, cfg } = this.deps;
    while (this.running) {
      const end = metrics.checkDuration.startTimer();
      let busy = false;
      try {
        const made = await this.checkOnce();
        // A check that made changes may have left more due (a backlog of debts for the engine): the next one follows at once.
        busy = Object.values(made).some((n) => n > 0);
        metrics.checks.inc({ outcome: 'ok' });
      } catch (err) {
        // A failed check (database away, a lock timeout) is retried at the next one.
        metrics.checks.inc({ outcome: 'failed' });
        log.error({ err }, 'check failed');
      } finally {
        end();
      }
      if (!this.running) break;
      if (busy) continue;
      await new Promise<void>((resolve) => {
        this.wakeUp = resolve;
        this.timer = setTimeout(resolve, cfg.WORKER_POLL_SECONDS * 1000);
      });
    }
    // Hand-overs still running are recorded before the loop ends (their communications are committed `queued`).
    await Promise.allSettled(this.following);
  }
}
