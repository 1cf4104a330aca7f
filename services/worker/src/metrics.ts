/**
 * Prometheus metrics of the worker (docs/api.md section 1): changes made by kind, checks by
 * outcome and their duration, import rows applied, on top of the default process metrics.
 */
import { Counter, Histogram, createServiceMetrics } from '@dms/metrics';

/** Check duration buckets, seconds: a check is a few short transactions. */
const CHECK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/** Creates the worker's registry and its instruments. */
export function createWorkerMetrics() {
  const { registry } = createServiceMetrics('worker');
  const changes = new Counter({
    name: 'worker_changes_total',
    help: 'Time-driven changes committed, by change: instalment_missed (plan broken, debt defaulted), pause_ended',
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
