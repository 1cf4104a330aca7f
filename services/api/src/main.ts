/**
 * Entry point of the resource API (`npm start -w services/api`): configuration from the
 * environment, then serve until SIGTERM, in `WEB_CONCURRENCY` worker processes sharing the port.
 */
import { createServer } from 'node:http';
import { resolveSecretsKey } from '@dms/config';
import { ApiError, toErrorBody } from '@dms/errors';
import { newId } from '@dms/ids';
import { createLogger } from '@dms/logger';
import { answerHeaderOverflow, runHttpService, runWorkers } from '@dms/lifecycle';
import { aggregateWorkerMetrics } from '@dms/metrics';
import { loadApiConfig } from './config.js';

const cfg = loadApiConfig();
const log = createLogger('api', cfg.LOG_LEVEL);

/** The API's error body for a request whose URL and headers exceed Node's limit (docs/api.md section 3). */
function headerOverflowAnswer() {
  const id = newId('req');
  const { body } = toErrorBody(new ApiError('request_header_too_large', "The request line and headers exceed the server's 16 KiB limit; shorten the URL."), id);
  return { contentType: 'application/json; charset=utf-8', body: `${JSON.stringify(body)}\n`, headers: { 'Request-Id': id } };
}

/** One serving process: pools, application, listener. */
async function serve(): Promise<void> {
  // The application is loaded only once the settings are valid (and only in a serving process):
  // a bad setting fails fast, with its one config-error line alone.
  const { createApp } = await import('./app.js');
  const { connectRedis } = await import('./redis.js');
  const { createDb } = await import('@dms/db');
  const { SecretBox } = await import('@dms/secrets');
  const { providerRefunds } = await import('./payments.js');
  const db = createDb(cfg.DATABASE_URL, cfg.DATABASE_POOL_MAX);
  const redis = cfg.REDIS_URL ? await connectRedis(cfg.REDIS_URL, log) : undefined;
  await runHttpService({
    server: (isDraining) => {
      const secretsKey = resolveSecretsKey(cfg);
      const ctx = { db, cfg, redis, box: new SecretBox(secretsKey), payments: providerRefunds(cfg, secretsKey) };
      const server = createServer(createApp(ctx, { log, isDraining }));
      server.keepAliveTimeout = 65_000;
      answerHeaderOverflow(server, headerOverflowAnswer);
      return server;
    },
    port: cfg.PORT,
    log,
    graceSeconds: cfg.SHUTDOWN_GRACE_SECONDS,
    close: [redis, db],
  });
}

await runWorkers({ workers: cfg.WEB_CONCURRENCY, log, graceSeconds: cfg.SHUTDOWN_GRACE_SECONDS, onPrimary: aggregateWorkerMetrics }, serve);
