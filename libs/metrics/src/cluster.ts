/**
 * Metrics of a service that runs several workers behind one port (`runWorkers` of
 * @dms/lifecycle): a scrape of `/metrics` reaches one worker, which answers for all of them, so
 * Prometheus sees the host's counters and histograms summed (prom-client's AggregatorRegistry;
 * gauges follow each metric's own aggregator).
 *
 * Protocol over the cluster's IPC channel: a worker sends `{type: REQUEST, id}`, the primary
 * collects every worker's registry and replies `{type: RESPONSE, id, body}` or `{..., error}`.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const REQUEST = 'dms:cluster-metrics-request';
const RESPONSE = 'dms:cluster-metrics-response';
/** Longest wait for the primary's answer, ms (prom-client itself gives up on a worker after 5 s). */
const ANSWER_TIMEOUT_MS = 6_000;

interface Answer {
  type: typeof RESPONSE;
  id: number;
  body?: string;
  error?: string;
}

let nextId = 0;
const waiting = new Map<number, (answer: Answer) => void>();

/**
 * In a cluster worker: offers `registry` to the primary's aggregation (call once per process,
 * when the registry is made). Elsewhere: does nothing.
 */
export function joinClusterMetrics(registry: Registry): void {
  if (!cluster.isWorker) return;
  new AggregatorRegistry(); // installs prom-client's worker-side listener
  AggregatorRegistry.setRegistries([registry]);
  process.on('message', (m: Answer) => {
    if (m?.type === RESPONSE) waiting.get(m.id)?.(m);
  });
}

/** In the primary: answers the workers' requests for the whole cluster's metrics. */
export function aggregateWorkerMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, m: { type?: string; id?: number }) => {
    if (m?.type !== REQUEST) return;
    aggregator.clusterMetrics().then(
      (body) => worker.send({ type: RESPONSE, id: m.id, body }),
      (err: Error) => worker.send({ type: RESPONSE, id: m.id, error: err.message }),
    );
  });
}

/**
 * The exposition text to serve at `/metrics`: `registry`'s own, or in a cluster worker the
 * aggregate of every worker (asked of the primary).
 * @throws when the primary does not answer within 6 s or a worker failed to report
 */
export async function metricsText(registry: Registry): Promise<string> {
  if (!cluster.isWorker || !process.send) return registry.metrics();
  const id = nextId++;
  const answer = await new Promise<Answer>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error('the cluster primary did not answer the metrics request'));
    }, ANSWER_TIMEOUT_MS);
    waiting.set(id, (a) => {
      clearTimeout(timer);
      waiting.delete(id);
      resolve(a);
    });
    process.send!({ type: REQUEST, id });
  });
  if (answer.error !== undefined) throw new Error(`cluster metrics: ${answer.error}`);
  return answer.body ?? '';
}
