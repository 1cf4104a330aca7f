/**
 * Prometheus metrics of the worker (docs/api.md sections 1 and 11): changes made by kind, checks by
 * outcome and their duration, import rows applied, on top of the default process metrics; read at
 * scrape time, the lag of each change kind, the partitions' runway and the database pool.
 */
import { Counter, Gauge, Histogram, createServiceMetrics, type PoolReading } from '@dms/metrics';
import type { ChangeLag } from './lag.js';

/** Check duration buckets, seconds: a check is a few short transactions. */
const CHECK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/** What the gauges read at scrape time (each optional: a gauge without a reader has no sample). */
export interface WorkerReaders {
  lags?: () => Promise<ChangeLag[]>;
  runway?: () => Promise<Array<{ table: string; seconds: number }>>;
  pool?: () => PoolReading;
}

/** Creates the worker's registry and its instruments. */
export function createWorkerMetrics(read: WorkerReaders = {}) {
  const { registry } = createServiceMetrics('worker', read.pool);
  // One read of the lags per scrape, shared by the two gauges that show them.
  let lagReading: Promise<ChangeLag[]> | undefined;
  const lagsOnce = () => {
    lagReading ??= (read.lags?.() ?? Promise.resolve([])).catch(() => []).finally(() => setImmediate(() => (lagReading = undefined)));
    return lagReading;
  };
  for (const [metric, name, help] of [
    ['engine', 'dms_engine_lag_seconds', 'How long the oldest due time-driven change of each kind has waited, seconds (0: none due)'],
    ['payout', 'dms_payout_lag_seconds', 'How long the oldest due payout run has waited, seconds (0: none due)'],
  ] as const) {
    new Gauge({
      name,
      help,
      labelNames: ['change'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const lag of await lagsOnce()) if (lag.metric === metric) this.set({ change: lag.change }, lag.seconds);
      },
    });
  }
  new Gauge({
    name: 'dms_partition_runway_seconds',
    help: 'Time until the newest partition of each partitioned table ends, seconds: inserts fail past it unless the retention job adds partitions',
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      const runway = await read.runway?.().catch(() => undefined);
      for (const r of runway ?? []) this.set({ table: r.table }, r.seconds);
    },
  });
  const changes = new Counter({
    name: 'worker_changes_total',
    help: 'Changes committed, by change: instalment_missed (plan broken, debt defaulted), pause_ended, plan_started (arranging to paying), debt_taken_in, strategy_step, send_retried, send_reconciled (the collection engine), customer_erased (retention, docs/api.md section 18), instalment_charged and promise_charged (saved cards charged, docs/api.md section 18), promise_reminded (a pay-later reminder the day before)',
    labelNames: ['change'],
    registers: [registry],
  });
  const checks = new Counter({
    name: 'worker_checks_total',
    help: 'Checks for due changes, by outcome: ok, failed',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const checkDuration = new Histogram({
    name: 'worker_check_duration_seconds',
    help: 'Duration of one check (all change kinds), seconds',
    buckets: CHECK_BUCKETS,
    registers: [registry],
  });
  const importRows = new Counter({
    name: 'worker_import_rows_total',
    help: 'Rows of file imports applied by this worker (each in its own transaction, refused rows included)',
    registers: [registry],
  });
  return { registry, changes, checks, checkDuration, importRows };
}
