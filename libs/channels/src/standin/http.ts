/**
 * The small HTTP plumbing the local stand-ins share (node:http): a route table, body reading
 * (JSON, form or query parameters as one flat record of strings, the way the Vonage SMS API
 * accepts them), JSON answers, and listening on a port (0: any free one) of 127.0.0.1.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import getRawBody from 'raw-body';

/** A request as a route sees it. */
export interface StandinRequest {
  method: string;
  url: URL;
  /** Path parameters of the route (`:name` segments). */
  params: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A route's answer. */
export interface StandinResponse {
  status: number;
  body?: unknown;
  /** `text/html`, `message/rfc822`…; JSON when unset. */
  contentType?: string;
}

export type Route = [method: string, pattern: string, handler: (req: StandinRequest) => Promise<StandinResponse> | StandinResponse];

const MAX_BODY = 25 * 1024 * 1024;

function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!;
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(got[i]!);
    else if (segment !== got[i]) return null;
  }
  return params;
}

/** Query, then form or JSON body, as one record of strings (later wins). */
export function requestParams(req: StandinRequest): Record<string, string> {
  const out: Record<string, string> = Object.fromEntries(req.url.searchParams);
  const type = String(req.headers['content-type'] ?? '');
  if (req.body.length === 0) return out;
  if (type.startsWith('application/json')) {
    const parsed = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
    for (const [k, v] of Object.entries(parsed)) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  } else {
    for (const [k, v] of new URLSearchParams(req.body.toString('utf8'))) out[k] = v;
  }
  return out;
}

/** An HTTP server on 127.0.0.1 answering `routes`; an unknown route is 404, a handler error 500 with its message. */
export function createStandinServer(routes: Route[]): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      let answer: StandinResponse;
      try {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const body = await getRawBody(req, { limit: MAX_BODY });
        const found = routes.map(([m, p, h]) => [m === req.method ? match(p, url.pathname) : null, h] as const).find(([params]) => params);
        answer = found
          ? await found[1]({ method: req.method ?? 'GET', url, params: found[0]!, headers: req.headers, body })
          : { status: 404, body: { error: 'not found' } };
      } catch (err) {
        answer = { status: err instanceof SyntaxError ? 400 : 500, body: { error: (err as Error).message } };
      }
      const type = answer.contentType ?? 'application/json; charset=utf-8';
      const payload =
        answer.body === undefined ? '' : typeof answer.body === 'string' || Buffer.isBuffer(answer.body) ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(payload);
    })();
  });
}

/** Listens on `port` (0: any free port) of 127.0.0.1 and resolves the port taken. */
export function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Closes a server, ending idle keep-alive connections. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Constant-time equality of two strings (credentials). */
export function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
