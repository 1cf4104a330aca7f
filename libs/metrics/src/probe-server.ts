/**
 * The HTTP surface of a background service (dispatcher, worker; docs/api.md section 1):
 * `/healthz` (process up), `/readyz` (ready: database reachable and not draining) and `/metrics`
 * (Prometheus text). GET and HEAD only; no API is served here. Every answer carries
 * `X-Content-Type-Options: nosniff`, as the API's and the issuer's do.
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/** Headers of every answer: a browser must not read a probe's JSON or text as anything else. */
const HEADERS = { 'x-content-type-options': 'nosniff' } as const;

/**
 * Builds the server (not yet listening).
 * @param registry the process registry served on `/metrics`
 * @param ready asked on each `/readyz`: true answers 200 `{"status":"ready"}`, false 503
 * @returns a node:http server; other paths answer 404, other methods 405 (JSON bodies), all `nosniff`
 */
export function createProbeServer(registry: Registry, ready: () => Promise<boolean>): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: object) => {
      res.writeHead(status, { ...HEADERS, 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { status: 'method not allowed' });
    if (path === '/healthz') return json(200, { status: 'ok' });
    if (path === '/readyz') {
      void ready().then((ok) => json(ok ? 200 : 503, { status: ok ? 'ready' : 'unavailable' }));
      return;
    }
    if (path === '/metrics') {
      void registry.metrics().then(
        (text) => res.writeHead(200, { ...HEADERS, 'content-type': registry.contentType }).end(text),
        () => json(500, { status: 'metrics unavailable' }),
      );
      return;
    }
    json(404, { status: 'not found' });
  });
}
