/**
 * Per-client rate limiting (CONTRACT section 3) with express-rate-limit: a fixed window of
 * `limit` requests per `windowSeconds` for each OAuth client (the token's `client_id`, so it runs
 * after authentication). Responses carry `RateLimit` and `RateLimit-Policy` (IETF draft
 * "RateLimit header fields for HTTP", draft 8); over the budget the answer is 429
 * `rate_limited` with `Retry-After` (RFC 9110 section 10.2.3) in our error format.
 *
 * The budget lives in memory, or in Redis when a connection is given, so that several API
 * instances share one budget per client. If Redis fails mid-flight requests pass unlimited (and
 * the failure is logged): losing rate limiting briefly is better than losing the API.
 */
import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { ApiError } from '@dms/errors';
import type { Logger } from '@dms/logger';
import type { RedisConnection } from '../redis.js';

/** Settings of the limiter. */
export interface RateLimitOptions {
  /** Requests allowed per client per window. */
  limit: number;
  /** Window length, seconds. */
  windowSeconds: number;
  /** Shared store; in-memory (per process) when absent. */
  redis?: RedisConnection;
  log: Logger;
}

/** Name of the policy in the `RateLimit`/`RateLimit-Policy` headers. */
export const RATE_LIMIT_POLICY = 'client';

/** Builds the middleware. Requires `req.principal` (mount after `authenticate`). */
export function clientRateLimit(opts: RateLimitOptions): RequestHandler {
  const store = opts.redis
    ? new RedisStore({
        prefix: 'dms:ratelimit:',
        // node-redis types replies generically; the store's Lua scripts return numbers and arrays.
        sendCommand: (...args: string[]) => opts.redis!.sendCommand(args) as Promise<RedisReply>,
      })
    : undefined;
  return rateLimit({
    windowMs: opts.windowSeconds * 1000,
    limit: opts.limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: RATE_LIMIT_POLICY,
    keyGenerator: (req) => req.principal!.clientId,
    store,
    passOnStoreError: true,
    // The keys are client ids, not addresses, so the IP-related sanity checks do not apply.
    validate: { trustProxy: false, xForwardedForHeader: false, ip: false, keyGeneratorIpFallback: false },
    logger: {
      error: (err: unknown, message?: string) => opts.log.error({ err }, message),
      warn: (err: unknown, message?: string) => opts.log.warn({ err }, message),
    },
    handler: (req, res, next) => {
      // express-rate-limit has set Retry-After already; the error body repeats it for humans.
      const retryAfter = String(res.getHeader('Retry-After') ?? opts.windowSeconds);
      next(
        new ApiError('rate_limited', `Rate limit of ${opts.limit} requests per ${opts.windowSeconds} s exceeded for this client; retry after ${retryAfter} s.`, {
          headers: { 'Retry-After': retryAfter },
        }),
      );
    },
  });
}
