/**
 * The dispatcher's only HTTP surface (docs/api.md section 1): `/healthz` (process up), `/readyz`
 * (database reachable and not draining) and `/metrics` (Prometheus). No API is served here.
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from '@dms/metrics';

/** Builds the server; `ready` is asked on each `/readyz`. */
export function createHealthServer(registry: Registry, ready: () => Promise<boolean>): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { status: 'method not allowed' });
    if (path === '/healthz') return json(200, { status: 'ok' });
    if (path === '/readyz') {
      void ready().then((ok) => json(ok ? 200 : 503, { status: ok ? 'ready' : 'unavailable' }));
      return;
    }
    if (path === '/metrics') {
      void registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => json(500, { status: 'metrics unavailable' }),
      );
      return;
    }
    json(404, { status: 'not found' });
  });
}
