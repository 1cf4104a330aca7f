/**
 * Assembles the resource API (Express): an ordered list of middlewares, each one check, then the
 * operations of every resource table (resources/index.ts), then 404 and the error serializer.
 */
import express, { type Express } from 'express';
import helmet from 'helmet';
import { poolUsage } from '@dms/db';
import { usePersonalDataBox } from '@dms/domain/kernel';
import { createServiceMetrics, metricsText } from '@dms/metrics';
import type { Logger } from '@dms/logger';
import type { AppContext } from './context.js';
import './http/types.js';
import { requestId } from './middleware/request-id.js';
import { requestLog } from './middleware/request-log.js';
import { authenticate } from './middleware/authenticate.js';
import { operatorTenant } from './middleware/operator-tenant.js';
import { apiVersion } from './middleware/api-version.js';
import { jsonBody } from './middleware/json-body.js';
import { clientRateLimit, unauthenticatedRateLimit } from './middleware/rate-limit.js';
import { idempotency } from './middleware/idempotency.js';
import { createIdempotencyStore } from './db/idempotency-store.js';
import { errorHandler, routeNotFound } from './middleware/errors.js';
import { documentationAssets } from './openapi/serve.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { componentSchemas } from './openapi/components.js';
import { isUpload, mountOperations } from './operations/mount.js';
import { allowedMethods, routeLabeler } from './operations/route-label.js';
import { cors, noStore } from './middleware/cors.js';
import { ALL_OPERATIONS, API_OPERATIONS, PUBLIC_OPERATIONS } from './resources/index.js';

/** Options beyond the context: the logger and a draining flag for readiness. */
export interface AppOptions {
  log: Logger;
  isDraining?: () => boolean;
}

/** Builds the Express application (and sets the personal-data box to `baseCtx.box`). Pure assembly: no I/O until requests arrive. */
export function createApp(baseCtx: AppContext, opts: AppOptions): Express {
  // Personal fields stored encrypted are sealed with the same key as the other secrets.
  usePersonalDataBox(baseCtx.box);
  const app = express();
  const metrics = createServiceMetrics('api', () => poolUsage(baseCtx.db));
  const routeLabel = routeLabeler(ALL_OPERATIONS);
  const methodsOf = allowedMethods(ALL_OPERATIONS);
  const components = componentSchemas(ALL_OPERATIONS);
  const openapiJson = JSON.stringify(
    buildOpenApiDocument(
      { serverUrl: baseCtx.cfg.PUBLIC_BASE_URL, tokenUrl: new URL('/oauth/token', baseCtx.cfg.AUTH_ISSUER).href, searchTotalCap: baseCtx.cfg.SEARCH_TOTAL_CAP },
      ALL_OPERATIONS,
    ),
  );
  const ctx: AppContext = {
    ...baseCtx,
    runtime: {
      metricsText: async () => ({ contentType: metrics.registry.contentType, body: await metricsText(metrics.registry) }),
      isDraining: () => opts.isDraining?.() ?? false,
      openapiJson,
    },
  };
  app.disable('x-powered-by');
  app.set('trust proxy', true);
  app.set('query parser', 'simple');

  app.use(requestId);
  app.use(requestLog(opts.log));
  app.use(helmet({ contentSecurityPolicy: false }));
  app.use(cors(ctx.cfg.corsOrigins, methodsOf));
  app.use((req, res, next) => {
    const stop = metrics.httpDuration.startTimer();
    res.on('finish', () => stop({ method: req.method, route: routeLabel(req, res), status: String(res.statusCode) }));
    next();
  });

  // Operational endpoints, the API's description and providers' callbacks: public (no token), like the token endpoint.
  app.use(documentationAssets());
  app.use(mountOperations(ctx, PUBLIC_OPERATIONS, components));

  app.use(noStore);
  app.use(authenticate({ jwksUri: ctx.cfg.JWKS_URI, issuer: ctx.cfg.AUTH_ISSUER, audience: ctx.cfg.API_AUDIENCE }));
  app.use(
    unauthenticatedRateLimit({
      limit: ctx.cfg.AUTH_FAILURE_LIMIT,
      windowSeconds: ctx.cfg.AUTH_FAILURE_WINDOW_SECONDS,
      trustProxy: ctx.cfg.TRUST_PROXY,
      redis: ctx.redis,
      log: opts.log,
    }),
  );
  app.use(clientRateLimit({ limit: ctx.cfg.RATE_LIMIT_PER_MINUTE, windowSeconds: ctx.cfg.RATE_LIMIT_WINDOW_SECONDS, redis: ctx.redis, log: opts.log }));
  // After the client's limiter, so that an operator's 400 for its `Tenant-Id` carries the rate-limit headers too.
  app.use(operatorTenant(ctx.db));
  app.use(apiVersion);
  // File uploads stream their multipart body themselves (never whole in memory); they are idempotent by the file's SHA-256.
  app.use(mountOperations(ctx, API_OPERATIONS.filter(isUpload), components));
  app.use(jsonBody);
  app.use(idempotency(createIdempotencyStore(ctx.db, ctx.box)));
  app.use(
    mountOperations(
      ctx,
      API_OPERATIONS.filter((op) => !isUpload(op)),
      components,
    ),
  );
  app.use(routeNotFound(methodsOf));
  app.use(errorHandler);
  return app;
}
