/**
 * Entry point of the webhook dispatcher (`npm start -w services/dispatcher`): configuration from
 * the environment, then deliver until SIGTERM. Any number of dispatchers may run against one
 * database; they share the work through the queue's row locks and leases.
 */
import { createDb, isReachable, poolUsage } from '@dms/db';
import { resolveSecretsKey } from '@dms/config';
import { createLogger } from '@dms/logger';
import { runHttpService } from '@dms/lifecycle';
import { SecretBox } from '@dms/secrets';
import { queueDepth } from '@dms/webhook-delivery';
import { loadDispatcherConfig } from './config.js';
import { Dispatcher } from './dispatcher.js';
import { createHealthServer } from './http/health.js';
import { createOutbound } from './http/outbound.js';
import { createDispatcherMetrics } from './metrics.js';
import { ClientCredentialsTokens } from './oauth/client-credentials.js';
import { listenForEvents } from './queue/wakeup.js';

const cfg = loadDispatcherConfig();
const log = createLogger('dispatcher', cfg.LOG_LEVEL);
const db = createDb(cfg.DATABASE_URL, cfg.DATABASE_POOL_MAX);
const box = new SecretBox(resolveSecretsKey(cfg));
const queueOptions = { leaseSeconds: cfg.leaseSeconds, tenantIds: cfg.tenantIds };
const metrics = createDispatcherMetrics(
  () => queueDepth(db, queueOptions),
  () => poolUsage(db),
);
const timeoutMs = cfg.DELIVERY_TIMEOUT_SECONDS * 1000;
const outbound = createOutbound({ allowPrivate: cfg.ALLOW_PRIVATE_WEBHOOK_TARGETS }, timeoutMs);
const tokens = new ClientCredentialsTokens(outbound, timeoutMs, cfg.TOKEN_REFRESH_MARGIN_SECONDS, {
  onRequest: (outcome) => metrics.tokenRequests.inc({ outcome }),
});
const dispatcher = new Dispatcher({ db, cfg, log, box, metrics, attempt: { outbound, tokens, timeoutMs } });
const served = cfg.tenantIds.length ? new Set(cfg.tenantIds) : undefined;
const wakeup = listenForEvents(cfg.DATABASE_URL, log, (tenantId) => {
  if (!served || tenantId === undefined || served.has(tenantId)) dispatcher.wake();
});

await runHttpService({
  server: (isDraining) => createHealthServer(metrics.registry, async () => !isDraining() && (await isReachable(db))),
  port: cfg.PORT,
  log,
  graceSeconds: cfg.SHUTDOWN_GRACE_SECONDS,
  // Leave a little of the grace period for returning unfinished deliveries to the queue.
  onShutdown: () => dispatcher.stop(Math.max(0, cfg.SHUTDOWN_GRACE_SECONDS * 1000 - 1000)),
  close: [wakeup, outbound, db],
});
dispatcher.start();
log.info(
  { schedule_seconds: cfg.schedule, concurrency: cfg.DISPATCH_CONCURRENCY, lease_seconds: cfg.leaseSeconds, tenants: cfg.tenantIds.length || 'all' },
  'dispatching',
);
