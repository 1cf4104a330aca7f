/**
 * Serves the API description, without authentication: `GET /openapi.json` (the generated OpenAPI
 * 3.1 document) and `GET /docs`, an API reference page (Swagger UI) rendered from it. Swagger UI's
 * assets come from the swagger-ui-dist package through `express.static` (no CDN), and the page's
 * Content-Security-Policy allows resources from the API's own origin only (plus `data:` images).
 */
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type RequestHandler } from 'express';
import helmet from 'helmet';
import { ApiError } from '@dms/errors';
import type { AppContext } from '../context.js';
import { buildOpenApiDocument } from './document.js';

/** `services/api/public/docs`: the page and its initializer script. */
const PAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../public/docs');
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** The only files of swagger-ui-dist the page needs (its sample initializer is not served). */
const SWAGGER_UI_FILES = new Set(['/swagger-ui.css', '/swagger-ui-bundle.js', '/favicon-32x32.png']);

const selfOnly = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    // Swagger UI's stylesheet draws its icons as inline `data:` SVGs; images cannot run code.
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'"],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
});

const onlySwaggerUiFiles: RequestHandler = (req, _res, next) =>
  SWAGGER_UI_FILES.has(req.path) ? next() : next(new ApiError('route_not_found', `Unrecognised request URL (${req.method} ${req.originalUrl}).`));

/** Builds the router of `/openapi.json` and `/docs`. The document is generated once. */
export function documentationRoutes(ctx: AppContext): Router {
  const router = Router();
  const document = JSON.stringify(
    buildOpenApiDocument({ serverUrl: ctx.cfg.PUBLIC_BASE_URL, tokenUrl: new URL('/oauth/token', ctx.cfg.AUTH_ISSUER).href }),
  );
  const cacheFor = { maxAge: '1h' };

  router.get('/openapi.json', (_req, res) => void res.type('application/json').send(document));
  router.get('/docs', selfOnly, (_req, res) => res.sendFile(join(PAGE_DIR, 'index.html')));
  router.use('/docs', selfOnly, express.static(PAGE_DIR, { index: false, ...cacheFor }));
  router.use('/docs/assets', onlySwaggerUiFiles, express.static(SWAGGER_UI_DIR, { index: false, ...cacheFor }));
  return router;
}
