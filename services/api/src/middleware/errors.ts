/**
 * The last middleware: turns anything thrown into the error body of docs/api.md section 3 and logs
 * server faults with their stack (the client sees only a generic message and the request id).
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError, toErrorBody } from '@dms/errors';
import { isDatabaseBusy } from '@dms/db';
// `req.log` is pino-http's (request-log.ts), declared on Express's Request by its types.
import type {} from 'pino-http';

/**
 * What no router handled: `OPTIONS` on a path that exists is 204 with `Allow` (RFC 9110 section
 * 9.3.7); another method of a path that exists is 405 `method_not_allowed` with `Allow`; anything
 * else 404 `route_not_found` (docs/api.md section 3).
 * @param allowed the methods of a path (`allowedMethods` of operations/route-label.ts)
 */
export function routeNotFound(allowed: (path: string) => string[]): RequestHandler {
  return (req, res, next) => {
    const methods = allowed(req.path);
    if (!methods.length) return next(new ApiError('route_not_found', `Unrecognised request URL (${req.method} ${req.path}).`));
    const allow = [...methods, 'OPTIONS'].join(', ');
    if (req.method === 'OPTIONS') return void res.set('Allow', allow).status(204).end();
    next(new ApiError('method_not_allowed', `${req.path} does not accept ${req.method}; it accepts ${allow}.`, { headers: { Allow: allow } }));
  };
}

/**
 * Maps the router's failure to decode a path parameter (`/debts/%E0%A4%A`: not percent-encoded
 * UTF-8; Express marks it `URIError` with status 400) to a client error instead of a 500.
 */
function fromRouter(err: unknown): ApiError | undefined {
  if (err instanceof URIError && (err as { status?: number }).status === 400) {
    return new ApiError('parameter_invalid', 'A path segment is not valid percent-encoded UTF-8.');
  }
  return undefined;
}

/** Seconds a client is asked to wait after a 503 caused by a busy database. */
export const BUSY_RETRY_AFTER_SECONDS = 2;

/**
 * Maps the database's time limits (no free pooled connection, `statement_timeout`,
 * `lock_timeout`; see `createDb` of @dms/db) to 503 `service_unavailable` with `Retry-After`:
 * the request did nothing, and the same request is likely to work shortly.
 */
function fromDatabase(err: unknown): ApiError | undefined {
  if (!isDatabaseBusy(err)) return undefined;
  return new ApiError('service_unavailable', `The database is busy; retry after ${BUSY_RETRY_AFTER_SECONDS} s.`, {
    headers: { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
  });
}

/**
 * Writes the error body of docs/api.md section 3 with the registered status and headers
 * (`toErrorBody` of @dms/errors); faults other than ApiError become a 500 whose message is generic.
 * If the response has already started it is only ended.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const apiError = err instanceof ApiError ? err : (fromRouter(err) ?? fromDatabase(err));
  const { status, body, headers } = toErrorBody(apiError ?? err, req.id as string);
  if (apiError?.code === 'service_unavailable')
    req.log?.warn({ err: { message: (err as Error).message, code: (err as { code?: unknown }).code } }, 'database busy');
  else if (status >= 500) req.log?.error({ err }, 'request failed');
  if (res.headersSent) return void res.end();
  // A trailing newline, as every JSON answer of the API has (a printed response ends its line).
  res
    .set(headers)
    .status(status)
    .type('application/json')
    .send(`${JSON.stringify(body)}\n`);
};
