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
import { payoutRuns } from './changes/payout-runs.js';
import { planStarts } from './changes/plan-starts.js';
import type { ChangeOutcome, TimedChange } from './changes/types.js';
import { engineChanges, type EngineDeps } from './engine/changes.js';
import type { WorkerConfig } from './config.js';
import type { WorkerMetrics } from './metrics.js';

/** The time-driven changes of sections 9, 12 and 14, in the order a check makes them (the collection engine's follow). */
const TIMED: readonly TimedChange[] = [pauseEnds, missedInstalments, planStarts, payoutRuns];

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs checks until stopped. */
export class Worker {
  private running = false;
  private loop: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wakeUp: (() => void) | undefined;

  /** The change kinds each check makes, in order (the lag gauges read the same list). */
  readonly changes: readonly TimedChange[];

  /** @param engine the collection engine's channels and links; without it the worker makes only the time-driven changes */
  constructor(private readonly deps: { db: Knex; cfg: WorkerConfig; log: Logger; metrics: WorkerMetrics; engine?: EngineDeps }) {
    this.changes = deps.engine ? [...TIMED, ...engineChanges(deps.engine)] : TIMED;
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
      made[change.name] = 0;
      for (let i = 0; i < this.deps.cfg.WORKER_BATCH_SIZE && this.running; i++) {
        const outcome = await this.applyOne(change);
        if (outcome.kind === 'none') break;
        if (outcome.kind === 'made') made[change.name]! += 1;
      }
    }
    return made;
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
      if (result.kind === 'made' && cfg.WORKER_TEST_HOLD_MS > 0) {
        // Test hook (NODE_ENV=test only): the change is written but not committed; a test kills
        // the process now to show that nothing of it survives.
        log.info({ change: change.name, object: result.object }, 'holding change before commit');
        await sleep(cfg.WORKER_TEST_HOLD_MS);
      }
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
  }
}
