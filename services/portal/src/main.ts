/**
 * Entry point of the customer portal (`npm start -w services/portal`): configuration from the
 * environment (and Redis when `REDIS_URL` is set), then serve until SIGTERM, in `WEB_CONCURRENCY`
 * worker processes sharing the port.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { createDb } from '@dms/db';
import { resolveSecretsKey } from '@dms/config';
import { usePersonalDataKey } from '@dms/domain/kernel';
import { createLogger } from '@dms/logger';
import { runHttpService, runWorkers } from '@dms/lifecycle';
import { aggregateWorkerMetrics } from '@dms/metrics';
import { paymentProvider } from '@dms/payments';
import { connectRedis } from '@dms/rate-limit';
import { loadPortalConfig } from './config.js';
import { buildPortal } from './app.js';

const cfg = loadPortalConfig();
const log = createLogger('portal', cfg.LOG_LEVEL);

/** One serving process. */
async function serve(): Promise<void> {
  const db = createDb(cfg.DATABASE_URL, cfg.DATABASE_POOL_MAX);
  usePersonalDataKey(resolveSecretsKey(cfg));
  // The cookie's signing key, derived from the secrets key (never the key itself).
  const sessionSecret = createHash('sha256')
    .update(`portal-session:${resolveSecretsKey(cfg)}`)
    .digest('base64url');
  // PAYMENT_PROVIDER: `local` (callback secret derived from the secrets key) or `stripe` (its keys checked by loadPortalConfig).
  const payments = paymentProvider(cfg, { secretsKey: resolveSecretsKey(cfg), portalBaseUrl: cfg.PORTAL_BASE_URL });
  // REDIS_URL: rate-limit budgets shared by every portal instance (else one per process).
  const redis = cfg.REDIS_URL ? await connectRedis(cfg.REDIS_URL, log) : undefined;
  let app: ReturnType<typeof buildPortal> | undefined;
  await runHttpService({
    server: (isDraining) =>
      createServer(
        (app = buildPortal(
          {
            db,
            log,
            databaseUrl: cfg.DATABASE_URL,
            baseUrl: cfg.PORTAL_BASE_URL,
            sessionSecret,
            trustProxy: cfg.TRUST_PROXY,
            payments,
            redis,
            rateLimits: {
              perLink: cfg.PORTAL_RATE_LIMIT_PER_LINK,
              perAddress: cfg.PORTAL_RATE_LIMIT_PER_ADDRESS,
              posts: cfg.PORTAL_RATE_LIMIT_POSTS,
              windowSeconds: cfg.PORTAL_RATE_LIMIT_WINDOW_SECONDS,
              trustProxy: cfg.TRUST_PROXY,
            },
          },
          isDraining,
        )),
      ),
    port: cfg.PORT,
    log,
    graceSeconds: cfg.SHUTDOWN_GRACE_SECONDS,
    close: [{ close: async () => app?.close() }, redis, db],
  });
}

await runWorkers({ workers: cfg.WEB_CONCURRENCY, log, graceSeconds: cfg.SHUTDOWN_GRACE_SECONDS, onPrimary: aggregateWorkerMetrics }, serve);
