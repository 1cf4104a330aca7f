/**
 * The ceiling of an HTTP API on this machine: a bare server (node:http and pg, no framework) that
 * serves the benchmark's pages, `GET /debts?limit=…[&after=…]`, `GET /payments?limit=…[&after=…]`
 * and `GET /debts/search?query=…&limit=…`, with the API's SQL (statements.ts), the API's JSON bytes
 * (bare-json.ts) and the API's pagination headers (docs/api.md section 4). Anything else is 404.
 *
 * Token check: a minimal RS256 verification of the bearer JWT (RFC 7515 signature with the
 * issuer's JWKS key for its `kid`, fetched once at start; `iss`, `aud`, `exp`), then `tenant_id`
 * from its claims (RFC 9068). Tokens are not cached: the API verifies each one, so does this.
 *
 * Started by bare.ts as a child process with IPC. Environment: DATABASE_URL, PORT, JWKS_URI,
 * AUTH_ISSUER, API_AUDIENCE, PUBLIC_BASE_URL, WEB_CONCURRENCY (workers; above 1 node:cluster
 * forks them and they share the port), DATABASE_POOL_MAX (connections per worker, as the API's).
 * Sends `ready` to its parent once every worker listens; SIGTERM stops it.
 */
import cluster from 'node:cluster';
import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { debtObject, listBody, paymentObject } from './bare-json.js';
import { cursorSeq, debtSearch, keysetPage, listTotal, type Statement } from './statements.js';

// As libs/db does for the API: int8 money and seq as JSON numbers, not strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

const env = process.env;
const workers = Math.max(1, Number(env.WEB_CONCURRENCY ?? 1));
const PAGE_PARAMS = new Set(['limit', 'after', 'before']);
/** Matches a search counts exactly, as the API's SEARCH_TOTAL_CAP (same default). */
const SEARCH_TOTAL_CAP = Number(env.SEARCH_TOTAL_CAP ?? 10_000);

/** The verification keys of the issuer by `kid`. */
async function loadKeys(jwksUri: string): Promise<Map<string, KeyObject>> {
  const res = await fetch(jwksUri);
  if (res.status !== 200) throw new Error(`JWKS ${jwksUri}: ${res.status}`);
  const { keys } = (await res.json()) as { keys: Array<JsonWebKey & { kid: string }> };
  return new Map(keys.map((k) => [k.kid, createPublicKey({ key: k, format: 'jwk' })]));
}

const json = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

/** The tenant of a valid bearer token, else undefined. */
function tenantOf(keys: Map<string, KeyObject>, authorization: string | undefined): string | undefined {
  if (!authorization?.startsWith('Bearer ')) return undefined;
  const [h, p, s] = authorization.slice(7).split('.');
  if (!h || !p || !s) return undefined;
  try {
    const header = json(h);
    const key = keys.get(String(header.kid));
    if (!key || header.alg !== 'RS256' || !verify('sha256', Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url'))) return undefined;
    const claims = json(p);
    const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (claims.iss !== env.AUTH_ISSUER || !audience.includes(env.API_AUDIENCE) || !(Number(claims.exp) * 1000 > Date.now())) return undefined;
    return typeof claims.tenant_id === 'string' ? claims.tenant_id : undefined;
  } catch {
    return undefined;
  }
}

/** The `Link` header of docs/api.md section 4: `first`, and `next`/`prev` when such pages exist. */
function links(url: URL, ids: string[], limit: number, hasOlder: boolean, hasNewer: boolean): string {
  const kept = [...url.searchParams].filter(([k]) => !PAGE_PARAMS.has(k));
  const base = `${env.PUBLIC_BASE_URL}${url.pathname}`;
  const page = (set: Array<[string, string]>) => `${base}?${new URLSearchParams([...kept, ...set]).toString()}`;
  const out = [`<${page([['limit', String(limit)]])}>; rel="first"`];
  if (ids.length && hasOlder)
    out.push(
      `<${page([
        ['after', ids[ids.length - 1]!],
        ['limit', String(limit)],
      ])}>; rel="next"`,
    );
  if (ids.length && hasNewer)
    out.push(
      `<${page([
        ['before', ids[0]!],
        ['limit', String(limit)],
      ])}>; rel="prev"`,
    );
  return out.join(', ');
}

type Lister = { table: 'debts' | 'payments'; counter: string; object: (r: Record<string, unknown>, livemode: boolean) => object };
const LISTS: Record<string, Lister> = {
  '/debts': { table: 'debts', counter: 'debts', object: debtObject },
  '/payments': { table: 'payments', counter: 'payments_all', object: paymentObject },
};

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** Serves one request (one worker). */
/** Each tenant's `livemode` (docs/api.md section 15), read once per process as the API does. */
const livemodes = new Map<string, boolean>();
async function livemodeOf(pool: pg.Pool, tenantId: string): Promise<boolean> {
  let livemode = livemodes.get(tenantId);
  if (livemode === undefined) {
    const { rows } = await pool.query<{ livemode: boolean }>('SELECT livemode FROM tenants WHERE id = $1', [tenantId]);
    livemode = rows[0]?.livemode ?? true;
    livemodes.set(tenantId, livemode);
  }
  return livemode;
}

async function serve(pool: pg.Pool, keys: Map<string, KeyObject>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://bare');
  const lister = LISTS[url.pathname];
  const searching = url.pathname === '/debts/search';
  if (req.method !== 'GET' || (!lister && !searching)) return send(res, 404, '{"error":{"code":"route_not_found"}}\n');
  const tenantId = tenantOf(keys, req.headers.authorization);
  if (!tenantId) return send(res, 401, '{"error":{"code":"invalid_token"}}\n');
  const limit = Number(url.searchParams.get('limit') ?? 10);
  const after = url.searchParams.get('after') ?? undefined;
  const run = async (s: Statement) => (await pool.query({ ...(s.name ? { name: s.name } : {}), text: s.text, values: s.values })).rows;

  let page: Statement;
  let total: Statement;
  let object: Lister['object'];
  if (searching) {
    const search = debtSearch(tenantId, url.searchParams.get('query') ?? '', limit, SEARCH_TOTAL_CAP);
    if (!search) return send(res, 400, '{"error":{"code":"invalid_search_query"}}\n');
    ({ page, total } = search);
    object = debtObject;
  } else {
    let seq: number | undefined;
    if (after !== undefined) {
      const [found] = await run(cursorSeq(lister!.table, tenantId, after));
      if (!found) return send(res, 400, '{"error":{"code":"invalid_cursor"}}\n');
      seq = Number(found.seq);
    }
    page = keysetPage(lister!.table, tenantId, limit, seq);
    total = listTotal(tenantId, lister!.counter);
    object = lister!.object;
  }
  const [rows, [sum]] = await Promise.all([run(page), run(total)]);
  const data = rows.slice(0, limit);
  const counted = Number(sum?.total ?? sum?.n ?? 0);
  // A search's total is capped and says so (docs/api.md section 4); a list's is exact.
  const totals: Record<string, string> = searching
    ? { 'x-total-count': String(Math.min(counted, SEARCH_TOTAL_CAP)), 'x-total-count-relation': counted > SEARCH_TOTAL_CAP ? 'gte' : 'eq' }
    : { 'x-total-count': String(counted) };
  const livemode = await livemodeOf(pool, tenantId);
  send(res, 200, listBody(data.map((r) => object(r, livemode))), {
    ...totals,
    'x-page-items': String(data.length),
    link: links(
      url,
      data.map((r) => r.id as string),
      limit,
      rows.length > limit,
      after !== undefined,
    ),
  });
}

/** One serving process: pool, keys, listening socket. */
async function worker(): Promise<void> {
  const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: Number(env.DATABASE_POOL_MAX ?? 10) });
  const keys = await loadKeys(env.JWKS_URI!);
  const server = createServer((req, res) => {
    serve(pool, keys, req, res).catch((err: Error) => {
      process.stderr.write(`bare server: ${err.stack}\n`);
      if (!res.headersSent) send(res, 500, '{"error":{"code":"internal_error"}}\n');
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(Number(env.PORT), '127.0.0.1', resolve));
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
    void pool.end().finally(() => process.exit(0));
  });
}

if (workers > 1 && cluster.isPrimary) {
  let listening = 0;
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on('listening', () => {
    if (++listening === workers) process.send?.('ready');
  });
  cluster.on('exit', (w, code) => {
    if (!stopping) process.stderr.write(`bare server: worker ${w.process.pid} exited with ${code}\n`);
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
  let stopping = false;
  process.once('SIGTERM', () => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
  });
} else {
  await worker();
  // Alone (one worker): tell the parent; a cluster worker's listening is reported by its primary.
  if (cluster.isPrimary) process.send?.('ready');
}
