/**
 * One structured log line per request (pino-http): request id, tenant, client, method, route,
 * status and duration. Headers and bodies are not logged, so no token, secret or personal data
 * reaches the logs.
 */
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '@dms/logger';

/**
 * Returns the access-log middleware writing to `log`: one line per finished request, at `error`
 * for 5xx or a thrown error and `info` otherwise; `req.log` becomes the request's child logger.
 */
export function requestLog(log: Logger): RequestHandler {
  return pinoHttp({
    logger: log,
    genReqId: (req) => (req as { id?: string }).id ?? '',
    quietReqLogger: true,
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    // Called when the request starts (before authentication: nothing to add, and no child logger is
    // made for nothing) and when it ends.
    customProps: ((req: { principal?: { tenantId: string; clientId: string } }) => {
      const principal = req.principal;
      return principal ? { tenant_id: principal.tenantId, client_id: principal.clientId } : undefined;
    }) as unknown as (req: unknown) => object,
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
  });
}
