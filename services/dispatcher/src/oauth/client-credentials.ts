/**
 * OAuth 2.0 client credentials grant (RFC 6749 section 4.4) on behalf of webhook endpoints that
 * carry `credentials.oauth2`: the dispatcher gets an access token from the receiver's token
 * endpoint and sends it as `Authorization: Bearer` (RFC 6750).
 *
 * - Client authentication by HTTP Basic (RFC 6749 section 2.3.1: id and secret form-encoded, then
 *   joined by ':' and base64-encoded); body `grant_type=client_credentials`.
 * - Tokens are cached per endpoint until shortly before `expires_in` runs out; concurrent
 *   deliveries share one in-flight request. The cache is keyed by the endpoint's
 *   `credentials_version`, so changed credentials never reuse a token obtained with old ones.
 * - Errors carry a secret-free message ("token endpoint answered 401 (invalid_client)").
 */
import type { Outbound } from '../http/outbound.js';
import { describeRequestError } from '../http/outbound.js';

/** Lifetime assumed when the token response omits `expires_in`, seconds. */
const DEFAULT_LIFETIME_SECONDS = 300;

/** The credentials of one endpoint, decrypted. */
export interface ClientCredentials {
  endpointId: string;
  /** Changes whenever the tenant changes the credentials. */
  version: number;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

/** Raised when no token could be obtained; `message` is safe to record and log. */
export class TokenRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenRequestError';
  }
}

interface Entry {
  version: number;
  token?: string;
  /** Epoch ms after which the token is no longer used. */
  renewAt?: number;
  pending?: Promise<string>;
}

/** Hooks for metrics. */
export interface TokenEvents {
  onRequest?(outcome: 'succeeded' | 'failed'): void;
}

/** Per-process token cache and client. */
export class ClientCredentialsTokens {
  readonly #entries = new Map<string, Entry>();

  /**
   * @param outbound SSRF-guarded HTTP client (token URLs are tenant-chosen too)
   * @param marginSeconds renew this long before expiry, at most a tenth of the token's lifetime
   */
  constructor(
    private readonly outbound: Outbound,
    private readonly timeoutMs: number,
    private readonly marginSeconds: number,
    private readonly events: TokenEvents = {},
  ) {}

  /**
   * A valid access token for `creds`: the cached one, or a new one from the token endpoint.
   * @param staleToken a token the receiver just rejected (401): it is dropped and a new one fetched,
   *   unless another delivery already replaced it
   * @throws TokenRequestError
   */
  async token(creds: ClientCredentials, opts: { signal?: AbortSignal; staleToken?: string } = {}): Promise<string> {
    let entry = this.#entries.get(creds.endpointId);
    if (!entry || entry.version !== creds.version) {
      entry = { version: creds.version };
      this.#entries.set(creds.endpointId, entry);
    }
    if (opts.staleToken !== undefined && entry.token === opts.staleToken) {
      entry.token = undefined;
      entry.renewAt = undefined;
    }
    if (entry.token && entry.renewAt! > Date.now()) return entry.token;
    if (!entry.pending) {
      const current = entry;
      current.pending = this.#fetch(creds, opts.signal)
        .then(({ token, lifetimeSeconds }) => {
          const margin = Math.min(this.marginSeconds, lifetimeSeconds / 10);
          current.token = token;
          current.renewAt = Date.now() + (lifetimeSeconds - margin) * 1000;
          return token;
        })
        .finally(() => {
          current.pending = undefined;
        });
    }
    return entry.pending!;
  }

  /** Forgets the endpoint's token (endpoint deleted or credentials removed). */
  forget(endpointId: string): void {
    this.#entries.delete(endpointId);
  }

  async #fetch(creds: ClientCredentials, signal?: AbortSignal): Promise<{ token: string; lifetimeSeconds: number }> {
    const basic = Buffer.from(`${encodeURIComponent(creds.clientId)}:${encodeURIComponent(creds.clientSecret)}`).toString('base64');
    let res;
    try {
      res = await this.outbound.post(creds.tokenUrl, {
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
        readBody: true,
        signal,
      });
    } catch (err) {
      this.events.onRequest?.('failed');
      throw new TokenRequestError(`token request failed: ${describeRequestError(err, this.timeoutMs)}`);
    }
    const fail = (why: string): never => {
      this.events.onRequest?.('failed');
      throw new TokenRequestError(`token request failed: ${why}`);
    };
    let json: { access_token?: unknown; token_type?: unknown; expires_in?: unknown; error?: unknown } = {};
    try {
      // Only an object is a token response; `null` (valid JSON) would otherwise crash the reads below.
      const parsed: unknown = JSON.parse(res.body);
      if (typeof parsed === 'object' && parsed !== null) json = parsed;
    } catch {
      if (res.status === 200) fail('token endpoint answered 200 without a JSON body');
    }
    if (res.status !== 200) {
      // RFC 6749 section 5.2 error codes are short registered words: safe to record.
      const code = typeof json.error === 'string' && /^[\x20-\x7e]{1,64}$/.test(json.error) ? ` (${json.error})` : '';
      fail(`token endpoint answered ${res.status}${code}`);
    }
    if (typeof json.access_token !== 'string' || json.access_token === '') fail('token response has no access_token');
    if (typeof json.token_type !== 'string' || json.token_type.toLowerCase() !== 'bearer') fail('token_type is not Bearer');
    const expiresIn = Number(json.expires_in);
    this.events.onRequest?.('succeeded');
    return { token: json.access_token as string, lifetimeSeconds: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_LIFETIME_SECONDS };
  }
}
