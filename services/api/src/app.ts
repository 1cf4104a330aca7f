/**
 * Assembles the resource API (Express): an ordered list of middlewares, each one check, then the
 * resource routers, then 404 and the error serializer.
 */
import express, { type Express } from 'express';
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
import { errorHandler, routeNotFound } from './middleware/errors.js';
import { apiRoutes } from './routes/index.js';

/** Options beyond the context: the logger and a draining flag for readiness. */
export interface AppOptions {
  log: Logger;
  isDraining?: () => boolean;
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
    res.on('finish', () => stop({ method: req.method, route: req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched', status: String(res.statusCode) }));
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

  app.use(authenticate({ jwksUri: ctx.cfg.JWKS_URI, issuer: ctx.cfg.AUTH_ISSUER, audience: ctx.cfg.API_AUDIENCE }));
  app.use(apiVersion);
  app.use(jsonBody);
  app.use(apiRoutes(ctx));
  app.use(routeNotFound);
  app.use(errorHandler);
  return app;
}
