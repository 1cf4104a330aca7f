/**
 * Prometheus metrics shared by the services (prom-client): one registry per process with the
 * default Node.js metrics and an HTTP request-duration histogram; several workers of one service
 * answer `/metrics` together (cluster.ts).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { joinClusterMetrics } from './cluster.js';

export { Counter, Gauge, Histogram, Registry };

/** Latency buckets in seconds, from 1 ms to 2.5 s. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** What `createServiceMetrics` reads from a database pool at scrape time (`poolUsage` of @dms/db). */
export interface PoolReading {
  used: number;
  free: number;
  pending: number;
  max: number;
}

/**
 * A process registry with default metrics and `http_request_duration_seconds{method,route,status}`;
 * with `readPool`, also `db_pool_connections{state="used"|"free"|"pending"}` and
 * `db_pool_max_connections` (docs/api.md section 11), read at scrape time.
 */
export function createServiceMetrics(service: string, readPool?: () => PoolReading) {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  joinClusterMetrics(registry);
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  if (readPool) watchPool(registry, readPool);
  return { registry, httpDuration };
}

function watchPool(registry: Registry, readPool: () => PoolReading): void {
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state: used, free (idle), pending (requests waiting for one)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const p = readPool();
      this.set({ state: 'used' }, p.used);
      this.set({ state: 'free' }, p.free);
      this.set({ state: 'pending' }, p.pending);
    },
  });
  new Gauge({
    name: 'db_pool_max_connections',
    help: 'Most connections the database pool opens (DATABASE_POOL_MAX)',
    registers: [registry],
    collect() {
      this.set(readPool().max);
    },
  });
}

export { createProbeServer } from './probe-server.js';
export { aggregateWorkerMetrics, metricsText } from './cluster.js';
