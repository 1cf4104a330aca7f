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

/** A process registry with default metrics and `http_request_duration_seconds{method,route,status}`. */
export function createServiceMetrics(service: string) {
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
  return { registry, httpDuration };
}

export { createProbeServer } from './probe-server.js';
export { aggregateWorkerMetrics, metricsText } from './cluster.js';
