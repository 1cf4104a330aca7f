/**
 * Per-route scope check (RFC 6750 section 3.1): a valid token without the route's scope is 403
 * `insufficient_scope`, naming the scope needed. An operator's `operations:read` / `operations:write`
 * cover every tenant scope of the same access (docs/api.md section 12); no tenant scope covers an
 * operator route.
 */
import type { RequestHandler } from 'express';
import { ApiError } from '@dms/errors';
import { allows, type Scope } from '@dms/scopes';

/** Middleware requiring `scope` on the authenticated principal. */
export function requireScope(scope: Scope): RequestHandler {
  return (req, _res, next) => {
    if (req.principal && allows(req.principal.scopes, scope)) return next();
    next(
      new ApiError('insufficient_scope', `This operation requires the scope "${scope}".`, {
        headers: { 'WWW-Authenticate': `Bearer realm="api", error="insufficient_scope", scope="${scope}"` },
      }),
    );
  };
}
