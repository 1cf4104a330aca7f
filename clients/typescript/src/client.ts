/**
 * The typed client of the Debt Management Service API: openapi-fetch over the types generated from
 * the API's OpenAPI document (schema.ts), with a fetch that
 * - authenticates every request (`Authorization: Bearer`, from a {@link TokenSource} or a fixed
 *   token; after a 401 the token is fetched again once),
 * - sends an `Idempotency-Key` (a random UUID) on every POST, PATCH and PUT that has none, the same
 *   key on every retry of that request, so a retried write runs once (docs/api.md section 3),
 * - retries 429 and 503 honouring `Retry-After` (retry.ts),
 * - and names the API version (`Api-Version`) when one is given.
 * `paginate` follows the `Link` header's `rel="next"` (docs/api.md section 4) as an async iterator.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';
import type { TokenSource } from './credentials.js';
import { withRetries, type RetryOptions } from './retry.js';

/** Settings of {@link createDmsClient}. */
export interface DmsClientOptions {
  /** The API's base URL, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** Where bearer tokens come from: `clientCredentials(...)`, or a fixed token. */
  auth: TokenSource | { token: string };
  /** `Api-Version` to send (default none: the API's newest). */
  apiVersion?: string;
  /** Send an `Idempotency-Key` on writes that have none (default true). */
  idempotencyKeys?: boolean;
  /** Retries of 429 and 503 (default 3 retries, `Retry-After` honoured). */
  retry?: RetryOptions;
  /** The fetch to use (default the global one). */
  fetch?: (req: Request) => Promise<Response>;
}

/** The typed client plus the helpers that are not one operation. */
export interface DmsClient extends Client<paths> {
  /** Every object of a list or search, page after page, following `Link: <…>; rel="next"`. */
  paginate<P extends ListPath>(path: P, init?: PageInit<P>): AsyncIterableIterator<ListItem<P>>;
  /** The authenticated, retrying fetch the client sends with (for URLs outside the typed paths). */
  send(req: Request): Promise<Response>;
}

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type GetOk<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? JsonOf<R> : never;

/** The paths whose GET answers a list (`{"object":"list","data":[…]}`). */
export type ListPath = { [P in keyof paths]: GetOk<P> extends { object: 'list'; data: unknown[] } ? P : never }[keyof paths];
/** The object type of a list path's `data`. */
export type ListItem<P extends ListPath> = GetOk<P> extends { data: Array<infer T> } ? T : never;
/** The path and query parameters of a list path's GET. */
export type PageInit<P extends ListPath> = paths[P] extends { get: { parameters: infer Params } } ? { params?: Partial<Params> } : never;

/** Methods that change something: they carry an `Idempotency-Key`. */
const WRITES = new Set(['POST', 'PATCH', 'PUT']);

/** The URL of `rel="next"` in an RFC 8288 `Link` header, or undefined. */
export function nextLink(link: string | null): string | undefined {
  for (const part of (link ?? '').split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (m && /;\s*rel="?([^";]*\s)?next(\s[^";]*)?"?(;|$)/.test(m[2]!)) return m[1];
  }
  return undefined;
}

/**
 * Builds a client.
 * @example
 *   const api = createDmsClient({ baseUrl, auth: clientCredentials({ tokenUrl, clientId, clientSecret, audience }) });
 *   const { data, error } = await api.POST('/organisations', { body: { name: 'Acme' } });
 */
export function createDmsClient(opts: DmsClientOptions): DmsClient {
  const base = opts.fetch ?? ((req: Request) => fetch(req));
  const auth = opts.auth;
  const tokenOf = async () => ('token' in auth && typeof auth.token === 'string' ? auth.token : (auth as TokenSource).token());

  const authenticated = async (req: Request): Promise<Response> => {
    const attempt = async () => {
      const r = req.clone();
      r.headers.set('Authorization', `Bearer ${await tokenOf()}`);
      return base(r);
    };
    const res = await attempt();
    // A token revoked or rotated early: one more try with a fresh one.
    if (res.status === 401 && 'invalidate' in auth) {
      await res.body?.cancel();
      auth.invalidate();
      return attempt();
    }
    return res;
  };
  const retrying = withRetries(authenticated, opts.retry);

  const send = async (req: Request): Promise<Response> => {
    if (opts.apiVersion && !req.headers.has('Api-Version')) req.headers.set('Api-Version', opts.apiVersion);
    if ((opts.idempotencyKeys ?? true) && WRITES.has(req.method) && !req.headers.has('Idempotency-Key')) {
      req.headers.set('Idempotency-Key', crypto.randomUUID());
    }
    return retrying(req);
  };

  const client = createClient<paths>({ baseUrl: opts.baseUrl.replace(/\/$/, ''), fetch: send });

  async function* paginate<P extends ListPath>(path: P, init?: PageInit<P>): AsyncIterableIterator<ListItem<P>> {
    const get = client.GET as unknown as (p: string, i?: unknown) => Promise<{ data?: { data: ListItem<P>[] }; error?: unknown; response: Response }>;
    const first = await get(path, init ?? {});
    if (first.error !== undefined || !first.data) throw new DmsApiError(first.response.status, first.error);
    yield* first.data.data;
    let next = nextLink(first.response.headers.get('link'));
    while (next) {
      const res = await send(new Request(next, { headers: { Accept: 'application/json' } }));
      const body = (await res.json()) as { data: ListItem<P>[] };
      if (!res.ok) throw new DmsApiError(res.status, body);
      yield* body.data;
      next = nextLink(res.headers.get('link'));
    }
  }

  return Object.assign(client, { paginate, send });
}

/** An error answer of the API (`{"object":"error","code","message","param"?,"request_id"}`). */
export class DmsApiError extends Error {
  readonly code: string | undefined;
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const b = (body ?? {}) as { code?: string; message?: string };
    super(`${status} ${b.code ?? ''}: ${b.message ?? ''}`.trim());
    this.name = 'DmsApiError';
    this.code = b.code;
  }
}
