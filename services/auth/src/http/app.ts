/**
 * The issuer's HTTP surface (docs/api.md section 1): the token endpoint and JWKS from oidc-provider,
 * RFC 8414 metadata, health, readiness and metrics. Anything else is 404, so none of
 * oidc-provider's interactive endpoints is reachable.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { SCOPES } from '@dms/scopes';
import { isReachable, type Knex } from '@dms/db';
import type { Logger } from '@dms/logger';
import { metricsText } from '@dms/metrics';
import { ROUTES } from '../oauth/provider.js';
import type { IssuerMetrics } from './metrics.js';
import type { TokenGate } from './token-rate-limit.js';

/** A Node request handler of the current oidc-provider instance. */
export type ProviderHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** What the HTTP layer needs. `provider()` returns the current handler (it changes on key rotation). */
export interface IssuerAppDeps {
  db: Knex;
  log: Logger;
  metrics: IssuerMetrics;
  issuer: string;
  provider: () => ProviderHandler | undefined;
  isDraining: () => boolean;
  /** Admits or refuses each token request (budget of failures per client and address, `tokenRateLimit`); none by default. */
  tokenGate?: TokenGate;
  /** Browser origins allowed (`CORS_ALLOWED_ORIGINS`); none by default. */
  corsOrigins?: ReadonlySet<string>;
}

/**
 * Headers of every answer of the issuer (docs/api.md section 1): no MIME sniffing, HTTPS only for
 * browsers that reached it over HTTPS once, never framed, no referrer.
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** Paths a browser could call, with their methods, for `Allow` and preflights. */
const PUBLIC_METHODS: ReadonlyMap<string, string> = new Map([
  [ROUTES.token, 'POST'],
  [ROUTES.jwks, 'GET, HEAD'],
  ['/.well-known/oauth-authorization-server', 'GET, HEAD'],
]);

/**
 * Cross-origin requests (docs/api.md section 11, "Browsers"): an origin listed in `origins` gets
 * `Access-Control-Allow-Origin` with its own value, and its preflight is answered. oidc-provider's
 * own CORS (which echoes any origin, or sends `*`) never runs: the `Origin` is taken off the
 * request before it sees it and every `Access-Control-*` header it would set is dropped, so any
 * other origin, or none, gets no such header, and its preflight 204 without one.
 * @returns true when the request was an `OPTIONS`, answered here
 */
function crossOrigin(req: IncomingMessage, res: ServerResponse, path: string, origins: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  const ok = origin !== undefined && origins.has(origin);
  delete req.headers.origin;
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name, value) => (name.toLowerCase().startsWith('access-control-') ? res : setHeader(name, value));
  if (origins.size) setHeader('Vary', 'Origin');
  if (ok) setHeader('Access-Control-Allow-Origin', origin);
  const methods = PUBLIC_METHODS.get(path);
  if (req.method !== 'OPTIONS' || !methods) return false;
  setHeader('Allow', `${methods}, OPTIONS`);
  if (ok && req.headers['access-control-request-method'] !== undefined) {
    setHeader('Access-Control-Allow-Methods', methods);
    setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
    setHeader('Access-Control-Max-Age', '600');
  }
  res.writeHead(204).end();
  return true;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * RFC 8414 section 2 authorization server metadata.
 * `response_types_supported` is empty: there is no authorization endpoint, only the token endpoint.
 */
function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    token_endpoint: new URL(ROUTES.token, issuer).href,
    jwks_uri: new URL(ROUTES.jwks, issuer).href,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: [...SCOPES],
    response_types_supported: [],
  };
}

/**
 * Koa middleware installed on each provider instance. RFC 6749 section 5.2: a 401
 * `invalid_client` carries `WWW-Authenticate` whichever way the client authenticated; oidc-provider
 * adds it only for HTTP Basic.
 */
export async function wwwAuthenticateOnInvalidClient(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  await next();
  if (ctx.status === 401 && !ctx.response.get('WWW-Authenticate')) {
    ctx.set('WWW-Authenticate', `Basic realm="${ctx.oidc?.provider.issuer ?? ''}", error="invalid_client"`);
  }
}

/** Builds the Node request handler of the issuer. */
export function createIssuerApp(deps: IssuerAppDeps) {
  const { metrics } = deps;
  const metadata = authorizationServerMetadata(deps.issuer);

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const stop = metrics.requestDuration.startTimer();
    res.on('finish', () => stop({ method: req.method, route: ROUTE_LABELS.has(path) ? path : 'other', status: String(res.statusCode) }));
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    if (crossOrigin(req, res, path, deps.corsOrigins ?? new Set())) return;

    if (req.method === 'GET' && path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (req.method === 'GET' && path === '/readyz') {
      const ready = !deps.isDraining() && deps.provider() !== undefined && (await isReachable(deps.db));
      return sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'unavailable' });
    }
    if (req.method === 'GET' && path === '/metrics') {
      // A worker of several asks the cluster primary; a missing answer is a 503, not a crash.
      const body = await metricsText(metrics.registry).catch((err: Error) => err);
      if (body instanceof Error) return sendJson(res, 503, { error: 'temporarily_unavailable', error_description: body.message });
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      return void res.end(body);
    }
    if (req.method === 'GET' && path === '/.well-known/oauth-authorization-server') {
      return sendJson(res, 200, metadata, { 'cache-control': 'public, max-age=300' });
    }
    if (path === ROUTES.token || path === ROUTES.jwks) {
      const handler = deps.provider();
      if (!handler) return sendJson(res, 503, { error: 'temporarily_unavailable', error_description: 'signing keys not loaded' });
      const serve = (request: IncomingMessage) => void handler(request, res);
      return path === ROUTES.token && deps.tokenGate ? deps.tokenGate(req, res, serve) : serve(req);
    }
    return sendJson(res, 404, { error: 'not_found', error_description: 'no such endpoint' });
  };
}

const ROUTE_LABELS = new Set(['/healthz', '/readyz', '/metrics', '/.well-known/oauth-authorization-server', ROUTES.token, ROUTES.jwks]);
