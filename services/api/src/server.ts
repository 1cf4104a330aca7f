/**
 * Entry point of the resource API (`npm start -w services/api`): configuration from the
 * environment, then serve until SIGTERM.
 */
import { createServer } from 'node:http';
import { resolveSecretsKey } from '@dms/config';
import { createDb } from '@dms/db';
import { SecretBox } from '@dms/secrets';
import { createLogger } from '@dms/logger';
import { runHttpService } from '@dms/lifecycle';
import { loadApiConfig } from './config.js';

const cfg = loadApiConfig();
// The application is loaded only once the settings are valid: a bad setting fails fast, with its
// one config-error line alone, instead of after compiling every route's schemas.
const { createApp } = await import('./app.js');
const { connectRedis } = await import('./redis.js');
const log = createLogger('api', cfg.LOG_LEVEL);
const db = createDb(cfg.DATABASE_URL, cfg.DATABASE_POOL_MAX);
const redis = cfg.REDIS_URL ? await connectRedis(cfg.REDIS_URL, log) : undefined;
await runHttpService({
  server: (isDraining) => {
    const server = createServer(createApp({ db, cfg, redis, box: new SecretBox(resolveSecretsKey(cfg)) }, { log, isDraining }));
    server.keepAliveTimeout = 65_000;
    return server;
  },
  port: cfg.PORT,
  log,
  graceSeconds: cfg.SHUTDOWN_GRACE_SECONDS,
  close: [redis, db],
});
