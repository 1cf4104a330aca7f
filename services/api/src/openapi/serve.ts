/**
 * Serves the assets of the API reference page (`GET /docs`, Swagger UI rendered from
 * `/openapi.json`), without authentication. Swagger UI's
 * assets come from the swagger-ui-dist package through `express.static` (no CDN), and the page's
 * Content-Security-Policy allows resources from the API's own origin only (plus `data:` images).
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import helmet from 'helmet';
import { ApiError } from '@dms/errors';
import { DOCS_PAGE_DIR } from '../resources/service/operations.js';

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

/**
 * The Content-Security-Policy of the reference page (own origin only) on `/docs` and below, and
 * the page's static files: its initializer from `services/api/public/docs` and Swagger UI's assets
 * under `/docs/assets`. The page itself and `/openapi.json` are operations (resources/service).
 */
export function documentationAssets(): Router {
  const router = Router();
  const cacheFor = { maxAge: '1h' };
  router.use('/docs', selfOnly);
  router.use('/docs', express.static(DOCS_PAGE_DIR, { index: false, redirect: false, ...cacheFor }));
  router.use('/docs/assets', onlySwaggerUiFiles, express.static(SWAGGER_UI_DIR, { index: false, ...cacheFor }));
  return router;
}
