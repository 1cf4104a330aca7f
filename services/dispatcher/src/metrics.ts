/**
 * Prometheus metrics of the dispatcher: attempts by outcome, attempt latency, token requests, the
 * queue depth (read from the database at scrape time) and endpoints disabled.
 */
import { Counter, Gauge, Histogram, createServiceMetrics, type PoolReading } from '@dms/metrics';

/** Attempt latency buckets, seconds: receivers answer in ms; the time limit is 15 s. */
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

export type DispatcherMetrics = ReturnType<typeof createDispatcherMetrics>;

/**
 * Creates the registry.
 * @param readDepth called at scrape time for `webhook_queue_depth{state="due"|"scheduled"}` and
 *   `webhook_queue_oldest_due_seconds`
 * @param readPool the database pool's usage, read at scrape time (`db_pool_*`)
 */
export function createDispatcherMetrics(readDepth: () => Promise<{ due: number; scheduled: number; oldestDueSeconds: number }>, readPool?: () => PoolReading) {
  const { registry } = createServiceMetrics('dispatcher', readPool);
  // One read of the queue per scrape, shared by the gauges that show it.
  let reading: Promise<{ due: number; scheduled: number; oldestDueSeconds: number } | undefined> | undefined;
  const depthOnce = () => {
    reading ??= readDepth()
      .catch(() => undefined)
      .finally(() => setImmediate(() => (reading = undefined)));
    return reading;
  };
  const attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Delivery attempts by outcome: succeeded, retrying (failed, retry scheduled), failed (schedule exhausted), interrupted',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const attemptDuration = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Duration of delivery attempts (including any token request), seconds',
    labelNames: ['outcome'],
    buckets: ATTEMPT_BUCKETS,
    registers: [registry],
  });
  const tokenRequests = new Counter({
    name: 'webhook_oauth_token_requests_total',
    help: 'OAuth 2.0 client-credentials token requests to receivers, by outcome',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const canceled = new Counter({
    name: 'webhook_deliveries_canceled_total',
    help: 'Deliveries canceled because their endpoint was deleted or disabled',
    registers: [registry],
  });
  const disabled = new Counter({
    name: 'webhook_endpoints_disabled_total',
    help: 'Endpoints disabled after failing a whole retry schedule',
    registers: [registry],
  });
  new Gauge({
    name: 'webhook_queue_depth',
    help: 'Pending deliveries: due now, or scheduled for a later retry',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const depth = await depthOnce();
      if (!depth) return;
      this.set({ state: 'due' }, depth.due);
      this.set({ state: 'scheduled' }, depth.scheduled);
    },
  });
  new Gauge({
    name: 'webhook_queue_oldest_due_seconds',
    help: 'How long the longest-waiting due delivery has been due, seconds (0: none waiting): the outbox backlog age',
    registers: [registry],
    async collect() {
      const depth = await depthOnce();
      if (depth) this.set(depth.oldestDueSeconds);
    },
  });
  return { registry, attempts, attemptDuration, tokenRequests, canceled, disabled };
}
