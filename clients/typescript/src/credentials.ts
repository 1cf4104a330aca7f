/**
 * OAuth 2.0 client credentials (RFC 6749 section 4.4) for the Debt Management Service API: asks
 * the issuer's token endpoint for an access token with `audience` (the API identifier, RFC 8707),
 * keeps it, and asks for a new one `refreshBeforeSeconds` before it expires (client credentials
 * issue no refresh token). Concurrent callers share one token request.
 */

/** Settings of {@link clientCredentials}. */
export interface ClientCredentialsOptions {
  /** The issuer's token endpoint, e.g. `http://localhost:4000/oauth/token`. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** The API identifier the token is for (the API's `API_AUDIENCE`, e.g. `http://localhost:3000`). */
  audience: string;
  /** Space-separated scopes to ask for; the client's allowed scopes when omitted. */
  scope?: string;
  /** Seconds before `expires_in` runs out at which a new token is fetched (default 60). */
  refreshBeforeSeconds?: number;
  /** The clock, milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
}

/** A source of bearer tokens. */
export interface TokenSource {
  /** A valid access token: the kept one, or a new one when it is about to expire. */
  token(): Promise<string>;
  /** Forgets the kept token (after a 401), so the next call fetches one. */
  invalidate(): void;
}

/** The issuer refused the token request, or answered something else than a token. */
export class TokenRequestError extends Error {
  constructor(
    readonly status: number,
    readonly error: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'TokenRequestError';
  }
}

/**
 * Builds a token source for a client's id and secret (HTTP Basic client authentication, RFC 6749
 * section 2.3.1).
 * @throws TokenRequestError (from `token()`) when the issuer answers an error (`invalid_client`, 401)
 */
export function clientCredentials(opts: ClientCredentialsOptions): TokenSource {
  const now = opts.now ?? Date.now;
  const doFetch = opts.fetch ?? fetch;
  const margin = (opts.refreshBeforeSeconds ?? 60) * 1000;
  let kept: { token: string; refreshAt: number } | undefined;
  let pending: Promise<string> | undefined;

  async function request(): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials', audience: opts.audience });
    if (opts.scope) form.set('scope', opts.scope);
    const basic = btoa(`${encodeURIComponent(opts.clientId)}:${encodeURIComponent(opts.clientSecret)}`);
    const started = now();
    const res = await doFetch(opts.tokenUrl, {
      method: 'POST',
      headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: form.toString(),
    });
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error?: string; error_description?: string };
    if (!res.ok || typeof body.access_token !== 'string') {
      throw new TokenRequestError(res.status, body.error, `token request failed: ${res.status} ${body.error ?? ''} ${body.error_description ?? ''}`.trim());
    }
    // Counted from when the request was sent, so the token is never used past its expiry.
    kept = { token: body.access_token, refreshAt: started + (body.expires_in ?? 3600) * 1000 - margin };
    return body.access_token;
  }

  return {
    async token() {
      if (kept && now() < kept.refreshAt) return kept.token;
      pending ??= request().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    invalidate() {
      kept = undefined;
    },
  };
}
