/**
 * Entry point of the worker for time-driven changes (`npm start -w services/worker`, docs/api.md
 * sections 1, 9 and 11): configuration from the environment, then checks until SIGTERM, which lets
 * the change in progress commit and stops. It also runs the retention job (retention.ts), which
 * keeps the event history's partitions, and, unless ENGINE_ENABLED is false, the collection
 * engine (docs/api.md sections 12 and 13), and the import runner (section 16). Any number of workers may run against one database;
 * row locks (SKIP LOCKED) make each change happen once.
 */
import { createDb, isReachable, poolUsage } from '@dms/db';
import { createLogger } from '@dms/logger';
import { runHttpService } from '@dms/lifecycle';
import { createProbeServer } from '@dms/metrics';
import { loadWorkerConfig } from './config.js';
import { createWorkerMetrics } from './metrics.js';
import { readLags, readPartitionRunway } from './lag.js';
import { Worker } from './worker.js';
import { startRetention } from './retention.js';
import { collectionEngine } from './engine/setup.js';
import { ImportRunner } from './imports.js';
import { resolveSecretsKey } from '@dms/config';
import { paymentProviders } from '@dms/payments';
import type { ChargeSaved } from '@dms/domain/portal';
import { resealAll, SealedKeyMissingError, usePersonalDataKey } from '@dms/domain/kernel';
import { sealLegacyBirthDates } from '@dms/domain/customers';
import { sealLegacyStatements } from '@dms/domain/income-and-expenditure';

const cfg = loadWorkerConfig();
const log = createLogger('worker', cfg.LOG_LEVEL);
const db = createDb(cfg.DATABASE_URL, cfg.DATABASE_POOL_MAX);
usePersonalDataKey(resolveSecretsKey(cfg));
// Dates of birth and statement details stored in clear before migrations 101 and 102 are sealed
// once, at start (counts only are logged).
log.info({ birth_dates: await sealLegacyBirthDates(db), statements: await sealLegacyStatements(db) }, 'legacy personal data sealed');
// After a rotation of SECRETS_KEY, values sealed with an older key are sealed again with the first
// one (deploy/README.md, "Rotating keys"); a value under a key no longer listed stops the start.
try {
  log.info({ resealed: await resealAll(db) }, 'sealed values under the current SECRETS_KEY');
} catch (err) {
  if (!(err instanceof SealedKeyMissingError)) throw err;
  process.stderr.write(`${err.message}\n`);
  await db.destroy();
  process.exit(1);
}
const metrics = createWorkerMetrics({
  lags: () => readLags(db, worker.changes, cfg.WORKER_CLOCK_OFFSET_SECONDS, cfg.tenantIds),
  runway: () => readPartitionRunway(db),
  pool: () => poolUsage(db),
});
const engine = cfg.ENGINE_ENABLED ? await collectionEngine(db, cfg, log) : undefined;
// Plans and promises are charged through the provider that saved their method (PAYMENT_PROVIDER's and any other known one).
const providers = paymentProviders(cfg, { secretsKey: resolveSecretsKey(cfg), portalBaseUrl: cfg.PORTAL_BASE_URL });
const charge: ChargeSaved = (name, req) => providers(name).chargeSaved(req);
const worker = new Worker({ db, cfg, log, metrics, charge, ...(engine ? { engine } : {}) });
const retention = startRetention(db, log, cfg.EVENT_RETENTION_DAYS);
const imports = new ImportRunner({ db, cfg, log, metrics });

await runHttpService({
  server: (isDraining) => createProbeServer(metrics.registry, async () => !isDraining() && (await isReachable(db))),
  port: cfg.PORT,
  log,
  graceSeconds: cfg.SHUTDOWN_GRACE_SECONDS,
  // Leave a little of the grace period for closing the pool.
  onShutdown: async () => {
    await retention.stop();
    const deadline = Math.max(0, cfg.SHUTDOWN_GRACE_SECONDS * 1000 - 1000);
    await Promise.all([worker.stop(deadline), imports.stop(deadline)]);
    await engine?.close();
  },
  close: [db],
});
worker.start();
imports.start();
log.info(
  {
    poll_seconds: cfg.WORKER_POLL_SECONDS,
    batch_size: cfg.WORKER_BATCH_SIZE,
    clock_offset_seconds: cfg.WORKER_CLOCK_OFFSET_SECONDS,
    tenants: cfg.tenantIds.length || 'all',
    engine: cfg.ENGINE_ENABLED,
  },
  'working',
);
