/**
 * Entry point of the issuer (`npm start -w services/auth`): configuration from the environment,
 * then serve until SIGTERM, in `WEB_CONCURRENCY` worker processes sharing the port.
 */
import { createLogger } from '@dms/logger';
import { runHttpService, runWorkers } from '@dms/lifecycle';
import { aggregateWorkerMetrics } from '@dms/metrics';
import { loadAuthConfig } from './config.js';

const cfg = loadAuthConfig();

/** One serving process: signing keys, provider, listener. */
async function serve(): Promise<void> {
  // Loaded after validation: importing oidc-provider may print warnings of its own, and a bad
  // setting must stop the process with its one config-error line alone.
  const { buildIssuer } = await import('./issuer.js');
  const issuer = await buildIssuer(cfg);
  await runHttpService({
    server: issuer.server,
    port: cfg.PORT,
    log: issuer.log,
    graceSeconds: cfg.SHUTDOWN_GRACE_SECONDS,
    onDrain: () => issuer.drain(),
    close: [issuer],
  });
}

await runWorkers(
  { workers: cfg.WEB_CONCURRENCY, log: createLogger('auth', cfg.LOG_LEVEL), graceSeconds: cfg.SHUTDOWN_GRACE_SECONDS, onPrimary: aggregateWorkerMetrics },
  serve,
);
