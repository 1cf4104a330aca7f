/**
 * Rate limits of the API (docs/api.md section 3), with express-rate-limit. Responses carry
 * `RateLimit` and `RateLimit-Policy` (IETF "RateLimit header fields for HTTP", draft 8); over a
 * budget the answer is 429 `rate_limited` with `Retry-After` (RFC 9110 section 10.2.3) in our
 * error format.
 *
 * - `clientRateLimit`: a fixed window of `limit` requests per `windowSeconds` for each OAuth client
 *   (the token's `client_id`, so it runs after authentication).
 * - `unauthenticatedRateLimit`: requests whose token fails authentication, counted per source
 *   address. Only failures count and only failures are refused, so a valid token always passes,
 *   even from an address that is over its budget.
 *
 * Budgets live in memory, or in Redis when a connection is given, so that several API instances
 * share them. If Redis fails mid-flight requests pass unlimited (and the failure is logged):
 * losing rate limiting briefly is better than losing the API.
 */
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import { ApiError } from '@dms/errors';
import type { Logger } from '@dms/logger';
import { UNAUTHENTICATED_POLICY, addressKey, limiterLogger, rateLimitStore, sourceAddress, type RedisConnection } from '@dms/rate-limit';

/** Settings of a limiter. */
export interface RateLimitOptions {
  /** Requests allowed per key per window. */
  limit: number;
  /** Window length, seconds. */
  windowSeconds: number;
  /** Shared store; in-memory (per process) when absent. */
  redis?: RedisConnection;
  log: Logger;
}

/** Name of the per-client policy in the `RateLimit`/`RateLimit-Policy` headers. */
export const RATE_LIMIT_POLICY = 'client';

/** A limiter with our headers, store and 429 error; `what` ends the error message ("for this client"). */
function limiter(opts: RateLimitOptions, policy: string, prefix: string, what: string, keyGenerator: (req: Request) => string): RequestHandler {
  return rateLimit({
    windowMs: opts.windowSeconds * 1000,
    limit: opts.limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: policy,
    keyGenerator,
    store: rateLimitStore(opts.redis, prefix),
    passOnStoreError: true,
    // Keys are client ids or addresses found by proxy-addr (sourceAddress), not `req.ip`.
    validate: { trustProxy: false, xForwardedForHeader: false, ip: false, keyGeneratorIpFallback: false },
    logger: limiterLogger(opts.log),
    handler: (_req, res, next) => {
      // express-rate-limit has set Retry-After already; the error body repeats it for humans.
      const retryAfter = String(res.getHeader('Retry-After') ?? opts.windowSeconds);
      next(
        new ApiError('rate_limited', `Rate limit of ${opts.limit} requests per ${opts.windowSeconds} s exceeded ${what}; retry after ${retryAfter} s.`, {
          headers: { 'Retry-After': retryAfter },
        }),
      );
    },
  });
}

/** Builds the per-client limiter. Requires `req.principal` (mount after `authenticate`). */
export function clientRateLimit(opts: RateLimitOptions): RequestHandler {
  return limiter(opts, RATE_LIMIT_POLICY, 'ratelimit', 'for this client', (req) => req.principal!.clientId);
}

/**
 * Builds the error middleware that counts failed authentications (`invalid_token`) per source
 * address (`trustProxy`: see `sourceAddress` of @dms/rate-limit) and turns the failures over the
 * budget into 429 `rate_limited`. Mount it right after `authenticate`; other errors pass through.
 */
export function unauthenticatedRateLimit(opts: RateLimitOptions & { trustProxy: string }): ErrorRequestHandler {
  const addressOf = sourceAddress(opts.trustProxy);
  const count = limiter(opts, UNAUTHENTICATED_POLICY, 'unauthenticated', 'from this address without a valid token', (req) => addressKey(addressOf(req)));
  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!(err instanceof ApiError) || err.code !== 'invalid_token') return next(err);
    // Under the budget the limiter only sets its headers and calls back empty: the 401 stands.
    void count(req, res, (limited?: unknown) => next(limited ?? err));
  };
}
