/**
 * Assembles the resource API (Express): an ordered list of middlewares, each one check, then the
 * resource routers, then 404 and the error serializer.
 */
import express, { type Express, type Request, type Response } from 'express';
import helmet from 'helmet';
import { isReachable } from '@dms/db';
import { createServiceMetrics } from '@dms/metrics';
import type { Logger } from '@dms/logger';
import type { AppContext } from './context.js';
import './http/types.js';
import { requestId } from './middleware/request-id.js';
import { requestLog } from './middleware/request-log.js';
import { authenticate } from './middleware/authenticate.js';
import { apiVersion } from './middleware/api-version.js';
import { jsonBody } from './middleware/json-body.js';
import { clientRateLimit, unauthenticatedRateLimit } from './middleware/rate-limit.js';
import { idempotency } from './middleware/idempotency.js';
import { createIdempotencyStore } from './db/idempotency-store.js';
import { errorHandler, routeNotFound } from './middleware/errors.js';
import { apiRoutes } from './routes/index.js';
import { documentationRoutes } from './openapi/serve.js';

/** Options beyond the context: the logger and a draining flag for readiness. */
export interface AppOptions {
  log: Logger;
  isDraining?: () => boolean;
}

/**
 * The `route` label of request metrics: the matched route template (never ids, so the label set
 * stays bounded), `replayed` for idempotent replays answered before routing, else `unmatched`.
 */
function routeLabel(req: Request, res: Response): string {
  if (req.route?.path) return `${req.baseUrl}${req.route.path === '/' ? '' : req.route.path}` || '/';
  return res.getHeader('Idempotent-Replayed') === 'true' ? 'replayed' : 'unmatched';
}

/** Builds the Express application. Pure assembly: no I/O until requests arrive. */
export function createApp(ctx: AppContext, opts: AppOptions): Express {
  const app = express();
  const metrics = createServiceMetrics('api');
  app.disable('x-powered-by');
  app.set('trust proxy', true);
  app.set('query parser', 'simple');

  app.use(requestId);
  app.use(requestLog(opts.log));
  app.use(helmet({ contentSecurityPolicy: false }));
  app.use((req, res, next) => {
    const stop = metrics.httpDuration.startTimer();
    res.on('finish', () => stop({ method: req.method, route: routeLabel(req, res), status: String(res.statusCode) }));
    next();
  });

  // Operational endpoints: unauthenticated, outside the versioned API.
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    const ready = !opts.isDraining?.() && (await isReachable(ctx.db));
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable' });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  // The API's description: public, like the token endpoint it points to.
  app.use(documentationRoutes(ctx));

  app.use(authenticate({ jwksUri: ctx.cfg.JWKS_URI, issuer: ctx.cfg.AUTH_ISSUER, audience: ctx.cfg.API_AUDIENCE }));
  app.use(unauthenticatedRateLimit({ limit: ctx.cfg.AUTH_FAILURE_LIMIT, windowSeconds: ctx.cfg.AUTH_FAILURE_WINDOW_SECONDS, trustProxy: ctx.cfg.TRUST_PROXY, redis: ctx.redis, log: opts.log }));
  app.use(clientRateLimit({ limit: ctx.cfg.RATE_LIMIT_PER_MINUTE, windowSeconds: ctx.cfg.RATE_LIMIT_WINDOW_SECONDS, redis: ctx.redis, log: opts.log }));
  app.use(apiVersion);
  app.use(jsonBody);
  app.use(idempotency(createIdempotencyStore(ctx.db, ctx.box)));
  app.use(apiRoutes(ctx));
  app.use(routeNotFound);
  app.use(errorHandler);
  return app;
}
