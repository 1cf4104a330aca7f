/**
 * Outbound HTTP to tenant-chosen URLs (receivers and their token endpoints): an undici Agent whose
 * connector refuses non-public addresses at connect time (SSRF guard, @dms/ssrf), so a host that
 * passed the check at registration but later resolves to a private address (DNS rebinding) is
 * never contacted. Redirects are not followed (undici follows none unless told to): a 3xx is just
 * a non-2xx answer. Every request has a time limit.
 */
import { isIP } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import { ForbiddenTargetError, guardedLookup, nonPublicRange, type TargetPolicy } from '@dms/ssrf';

/** Most bytes read from a response body; the rest is discarded. */
const MAX_BODY_BYTES = 64 * 1024;

/** What came back from a request. */
export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Up to 64 KiB of the body when asked for, else ''. */
  body: string;
}

/** An HTTP client bound to an SSRF policy and a per-request time limit. */
export interface Outbound {
  /**
   * POSTs `body` to `url`.
   * @param readBody keep (up to 64 KiB of) the response body; otherwise it is discarded
   * @param signal aborts the request (e.g. the dispatcher's lease running out or shutdown)
   * @throws on network failure, timeout, refusal by the SSRF guard (ForbiddenTargetError)
   */
  post(url: string, opts: { headers: Record<string, string>; body: string; readBody?: boolean; signal?: AbortSignal }): Promise<OutboundResponse>;
  close(): Promise<void>;
}

/**
 * Builds the client.
 * @param timeoutMs limit of one request (connect, headers and body), milliseconds
 */
export function createOutbound(policy: TargetPolicy, timeoutMs: number): Outbound {
  const base = buildConnector({ lookup: guardedLookup(policy), timeout: timeoutMs });
  // IP-literal hosts never reach `lookup`, so they are checked here, before any socket opens.
  const connect: buildConnector.connector = (options, callback) => {
    const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!policy.allowPrivate && isIP(host)) {
      const range = nonPublicRange(host);
      if (range) return callback(new ForbiddenTargetError(host, host, range), null);
    }
    base(options, callback);
  };
  const agent = new Agent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 10_000 });

  return {
    async post(url, opts) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
      const res = await request(url, { method: 'POST', headers: opts.headers, body: opts.body, dispatcher: agent, signal });
      let body = '';
      if (opts.readBody) {
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body) {
          if (size < MAX_BODY_BYTES) chunks.push(chunk as Buffer);
          size += (chunk as Buffer).length;
        }
        body = Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8');
      } else {
        await res.body.dump({ limit: MAX_BODY_BYTES }).catch(() => {});
      }
      return { status: res.statusCode, headers: res.headers, body };
    },
    close: () => agent.close(),
  };
}

/**
 * A short, secret-free description of a failed request for the attempt record and logs:
 * "timed out after 15 s", "connection refused", "refused: … not a public address", ….
 */
export function describeRequestError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  if (err instanceof ForbiddenTargetError) return `refused: ${err.message}`;
  if (e.cause instanceof ForbiddenTargetError) return `refused: ${e.cause.message}`;
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `timed out after ${timeoutMs / 1000} s`;
  }
  if (e.name === 'AbortError') return 'aborted';
  const code = e.code ?? (e.cause as { code?: string } | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host could not be resolved';
    default:
      return code ? `request failed (${code})` : `request failed: ${e.message ?? 'unknown error'}`;
  }
}
