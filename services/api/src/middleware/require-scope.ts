/**
 * Per-route scope check (RFC 6750 section 3.1): a valid token without the route's scope is 403
 * `insufficient_scope`, naming the scope needed.
 */
import type { RequestHandler } from 'express';
import { ApiError } from '@dms/errors';
import type { Scope } from '@dms/scopes';

/** Middleware requiring `scope` on the authenticated principal. */
export function requireScope(scope: Scope): RequestHandler {
  return (req, _res, next) => {
    if (req.principal?.scopes.has(scope)) return next();
    next(
      new ApiError('insufficient_scope', `This operation requires the scope "${scope}".`, {
        headers: { 'WWW-Authenticate': `Bearer realm="api", error="insufficient_scope", scope="${scope}"` },
      }),
    );
  };
}
