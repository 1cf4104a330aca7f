/**
 * The worker's import loop (docs/api.md section 16): claims a lane of a waiting import, applies a
 * batch of its rows (placements in one transaction, set-wise; other rows each in their own, through
 * @dms/domain's imports), and repeats while there is work; when none is left it completes finished
 * imports and waits `WORKER_POLL_SECONDS`. Runs beside the time-driven changes, so a long import
 * never delays them. Several workers share one import's lanes; a killed worker's lane is taken
 * over when its lease (`IMPORT_LEASE_SECONDS`) runs out, after its last committed transaction.
 */
import type { Knex } from '@dms/db';
import type { Logger } from '@dms/logger';
import { applyImportBatch, completeImports } from '@dms/domain/imports';
import type { WorkerConfig } from './config.js';
import type { WorkerMetrics } from './metrics.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Applies imports until stopped. */
export class ImportRunner {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;

  constructor(private readonly deps: { db: Knex; cfg: WorkerConfig; log: Logger; metrics: WorkerMetrics }) {}

  /** Starts the loop. */
  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  /** Stops after the row in progress commits; resolves when the loop ended (or at `deadlineMs`). */
  async stop(deadlineMs: number): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await Promise.race([this.loop, sleep(deadlineMs)]);
  }

  /**
   * Works until no lane is free, then completes finished imports.
   * @returns rows applied
   */
  async drainOnce(): Promise<number> {
    const { db, cfg } = this.deps;
    const options = {
      tenantIds: cfg.tenantIds,
      batchSize: cfg.IMPORT_BATCH_SIZE,
      rowsPerTransaction: cfg.IMPORT_ROWS_PER_TRANSACTION,
      leaseSeconds: cfg.IMPORT_LEASE_SECONDS,
      holdMs: cfg.IMPORT_TEST_HOLD_MS,
    };
    let total = 0;
    while (this.running) {
      const applied = await applyImportBatch(db, options);
      total += applied;
      if (applied === 0) break;
      this.deps.metrics.importRows.inc(applied);
    }
    const completed = await completeImports(db, cfg.tenantIds);
    if (completed) this.deps.log.info({ completed }, 'imports completed');
    return total;
  }

  private async run(): Promise<void> {
    const { log, cfg } = this.deps;
    while (this.running) {
      try {
        await this.drainOnce();
      } catch (err) {
        // A failed pass (database away, a lock timeout) is retried at the next one; applied rows stay applied.
        log.error({ err }, 'import pass failed');
      }
      if (!this.running) break;
      await new Promise<void>((resolve) => {
        this.wakeUp = resolve;
        setTimeout(resolve, cfg.WORKER_POLL_SECONDS * 1000);
      });
    }
  }
}
