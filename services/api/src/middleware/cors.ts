/**
 * Cross-origin requests (docs/api.md section 11, "Browsers"): this is a machine-to-machine API, so
 * no browser origin is allowed unless listed in `CORS_ALLOWED_ORIGINS`. An allowed origin gets
 * `Access-Control-Allow-Origin` with its own value (never `*`, never an unlisted origin echoed) and
 * the headers a client reads exposed; its preflight is answered here, before authentication
 * (browsers send none with it). Any other origin's preflight gets 204 without a single
 * `Access-Control-Allow-*` header, so the browser refuses the request.
 */
import type { RequestHandler } from 'express';

/** Request headers a browser client may send. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Api-Version', 'If-Match', 'If-None-Match', 'Tenant-Id'];
/** Response headers a browser client may read. */
const EXPOSED_HEADERS = [
  'Request-Id',
  'Location',
  'Link',
  'ETag',
  'Retry-After',
  'X-Total-Count',
  'X-Total-Count-Relation',
  'X-Page-Items',
  'Idempotent-Replayed',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
];
/** Seconds a browser may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * The CORS middleware.
 * @param origins exact origins allowed (`https://app.example.com`), from `CORS_ALLOWED_ORIGINS`
 * @param allowed the methods of a path (`allowedMethods` of operations/route-label.ts); a
 *   preflight for a path that does not exist goes on to the 404
 */
export function cors(origins: readonly string[], allowed: (path: string) => string[]): RequestHandler {
  const allowedOrigins = new Set(origins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    const ok = origin !== undefined && allowedOrigins.has(origin);
    if (allowedOrigins.size) res.vary('Origin');
    if (ok) {
      res.set('Access-Control-Allow-Origin', origin);
      res.set('Access-Control-Expose-Headers', EXPOSED_HEADERS.join(', '));
    }
    if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return next();
    const methods = allowed(req.path);
    if (!methods.length) return next();
    res.set('Allow', [...methods, 'OPTIONS'].join(', '));
    if (ok) {
      res.set('Access-Control-Allow-Methods', methods.join(', '));
      res.set('Access-Control-Allow-Headers', ALLOWED_HEADERS.join(', '));
      res.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
    }
    res.status(204).end();
  };
}

/**
 * `Cache-Control: no-store` on every answer of the tenant API (docs/api.md section 11): they carry
 * a tenant's data (customers, contact details, debts), which no shared or browser cache may keep.
 */
export const noStore: RequestHandler = (_req, res, next) => {
  res.set('Cache-Control', 'no-store');
  next();
};
