/**
 * Bearer token authentication (RFC 6750) of JWT access tokens (RFC 9068, RFC 7519).
 *
 * Checks, in order: an `Authorization: Bearer` header; the JOSE header (`typ` at+jwt, an allowed
 * `alg`, a `kid`); the signature with the issuer's key for that `kid` (jwks-rsa caches keys and
 * refetches on an unknown `kid`, rate-limited); `iss`, `aud`, `exp`/`nbf`; and the `tenant_id` and
 * `client_id` claims. Any failure is 401 `invalid_token` with `WWW-Authenticate`.
 *
 * A client sends the same token with every request until it expires (RFC 6749 section 1.4), so
 * the outcome of a successful verification is remembered per token (a bounded LRU cache): a token
 * seen again skips the signature and JSON work, yet is refused exactly when it would be refused
 * if verified again: once `exp` (with the same clock tolerance) has passed, or once jwks-rsa no
 * longer hands out the key object that verified it (its key left the JWKS and the cache expired).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import jwt, { type JwtHeader, type JwtPayload } from 'jsonwebtoken';
import jwksRsa from 'jwks-rsa';
import { ApiError } from '@dms/errors';
import { parseScope } from '@dms/scopes';

/** Only asymmetric algorithms: an HS256 token "signed" with a public key must never verify. */
export const ALLOWED_ALGORITHMS: jwt.Algorithm[] = ['RS256', 'ES256'];

/** Settings of the verifier. */
export interface TokenVerifierOptions {
  jwksUri: string;
  issuer: string;
  audience: string;
  /** Allowed clock skew, seconds. */
  clockToleranceSeconds?: number;
}

/** Tokens remembered at most (the least recently used is forgotten first): about 1 KiB each. */
const VERIFIED_TOKENS_MAX = 1000;

/** A verified token's caller, its expiry (seconds since the epoch) and the key object that verified it. */
interface Verified {
  principal: NonNullable<Express.Request['principal']>;
  exp: number;
  key: jwksRsa.SigningKey;
}

function invalidToken(description: string): ApiError {
  return new ApiError('invalid_token', description, {
    headers: { 'WWW-Authenticate': `Bearer realm="api", error="invalid_token", error_description="${description}"` },
  });
}

/**
 * Builds the authentication middleware. On success sets `req.principal`.
 * @throws (to `next`) ApiError `invalid_token` (401)
 */
export function authenticate(opts: TokenVerifierOptions): RequestHandler {
  const keys = jwksRsa({
    jwksUri: opts.jwksUri,
    cache: true,
    cacheMaxEntries: 20,
    cacheMaxAge: 10 * 60 * 1000,
    // An attacker sending random kids must not turn the API into a JWKS fetch amplifier.
    rateLimit: true,
    jwksRequestsPerMinute: 10,
    timeout: 5000,
  });

  // jsonwebtoken would parse a PEM string into a KeyObject on every request (an ASN.1 parse, 5% of
  // the API's CPU under load). The KeyObject is kept per jwks-rsa key object, which jwks-rsa's cache
  // returns for a kid until its max age: a key that left the JWKS stops verifying exactly as before.
  const publicKeys = new WeakMap<jwksRsa.SigningKey, KeyObject>();
  const publicKey = (key: jwksRsa.SigningKey): KeyObject => {
    let parsed = publicKeys.get(key);
    if (!parsed) publicKeys.set(key, (parsed = createPublicKey(key.getPublicKey())));
    return parsed;
  };

  const tolerance = opts.clockToleranceSeconds ?? 5;
  // Least recently used tokens are forgotten first once VERIFIED_TOKENS_MAX are remembered.
  const verified = new LRUCache<string, Verified>({ max: VERIFIED_TOKENS_MAX });

  return (req, _res, next) => {
    const header = req.headers.authorization;
    const match = header ? /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header) : null;
    if (!match) return next(invalidToken(header ? 'malformed Authorization header' : 'no bearer token'));
    const token = match[1]!;

    const known = verified.get(token);
    if (known) {
      // jsonwebtoken's rule: expired once now >= exp + tolerance.
      if (Math.floor(Date.now() / 1000) >= known.exp + tolerance) {
        verified.delete(token);
        return next(invalidToken('token expired'));
      }
      // The key it was verified with must still be the one the JWKS cache gives for its kid.
      return void keys.getSigningKey(known.key.kid).then(
        (key) => {
          if (key !== known.key) {
            verified.delete(token);
            return verifyToken(req, token, next);
          }
          req.principal = known.principal;
          next();
        },
        () => {
          verified.delete(token);
          verifyToken(req, token, next);
        },
      );
    }
    verifyToken(req, token, next);
  };

  /** Full verification of `token`; on success sets `req.principal` and remembers the outcome. */
  function verifyToken(req: Parameters<RequestHandler>[0], token: string, next: (err?: unknown) => void): void {
    let signingKey: jwksRsa.SigningKey | undefined;
    const getKey = (header: JwtHeader, callback: jwt.SigningKeyCallback) => {
      if (!header.kid) return callback(new Error('token has no kid'));
      keys.getSigningKey(header.kid).then(
        (key) => {
          signingKey = key;
          callback(null, publicKey(key));
        },
        () => callback(new Error('no key for kid')),
      );
    };

    const decoded = jwt.decode(token, { complete: true });
    if (!decoded || typeof decoded.payload === 'string') return next(invalidToken('malformed token'));
    const typ = String(decoded.header.typ ?? '').toLowerCase();
    if (typ !== 'at+jwt' && typ !== 'application/at+jwt') return next(invalidToken('not an access token'));
    if (!ALLOWED_ALGORITHMS.includes(decoded.header.alg as jwt.Algorithm)) return next(invalidToken('algorithm not allowed'));

    jwt.verify(
      token,
      getKey,
      {
        algorithms: ALLOWED_ALGORITHMS,
        issuer: opts.issuer,
        audience: opts.audience,
        clockTolerance: tolerance,
      },
      (err, payload) => {
        if (err || !payload || typeof payload === 'string') {
          const reason = err?.name === 'TokenExpiredError' ? 'token expired' : 'token verification failed';
          return next(invalidToken(reason));
        }
        const claims = payload as JwtPayload & { tenant_id?: unknown; client_id?: unknown; scope?: unknown; operator?: unknown; livemode?: unknown };
        // jsonwebtoken checks `exp` only when present; RFC 9068 section 2.2 makes it required, and
        // a token without it would never expire.
        if (typeof claims.exp !== 'number') return next(invalidToken('token has no exp'));
        // A tenant's token names its tenant; an operator's names none (its requests do, in `Tenant-Id`).
        const operator = claims.operator === true;
        if (typeof claims.client_id !== 'string' || (!operator && typeof claims.tenant_id !== 'string')) {
          return next(invalidToken('token lacks tenant_id or client_id'));
        }
        req.principal = {
          tenantId: operator ? '' : (claims.tenant_id as string),
          clientId: claims.client_id,
          scopes: new Set(parseScope(typeof claims.scope === 'string' ? claims.scope : '')),
          operator,
          // A test client's token says `livemode: false` (docs/api.md section 15); an operator's
          // mode is its `Tenant-Id`'s (operator-tenant.ts).
          livemode: claims.livemode !== false,
        };
        if (signingKey) verified.set(token, { principal: req.principal, exp: claims.exp, key: signingKey });
        next();
      },
    );
  }
}
