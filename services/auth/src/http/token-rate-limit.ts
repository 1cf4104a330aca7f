/**
 * Failed token requests per client and source address (docs/api.md section 1): express-rate-limit
 * counts every token request of a (`client_id`, address) pair and takes back the successful ones,
 * so only failures (any 4xx: wrong secret, unknown client, bad grant) use the budget. Once a pair
 * has spent it, its token requests are refused with 429 before their credentials are checked,
 * which is what stops guessing a client's secret; a client that only succeeds never spends
 * anything, and other clients keep their own budgets even from the same address (every client
 * behind one ingress shares its address when `TRUST_PROXY` does not name it). Requests naming no
 * client share their address's anonymous budget.
 *
 * The 429 carries `Retry-After`, the `RateLimit`/`RateLimit-Policy` headers (IETF draft 8) and an
 * RFC 6749 section 5.2 style body, `{"error":"temporarily_unavailable","error_description"}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Logger } from '@dms/logger';
import { tokenClient } from './token-client.js';
import { UNAUTHENTICATED_POLICY, addressKey, limiterLogger, rateLimitStore, sourceAddress, type RedisConnection } from '@dms/rate-limit';

/** Settings of the token endpoint's limiter. */
export interface TokenRateLimitOptions {
  /** Failed token requests allowed per client and source address per window. */
  limit: number;
  /** Window length, seconds. */
  windowSeconds: number;
  /** Proxies whose `X-Forwarded-For` is believed (see `sourceAddress` of @dms/rate-limit). */
  trustProxy: string;
  /** Shared store; in-memory (per process) when absent. */
  redis?: RedisConnection;
  log: Logger;
}

/**
 * Runs `next` with the request to serve (the original, or a replay of it once its body was read
 * for its `client_id`) when the client may make a token request from its address, else answers
 * 429 itself.
 */
export type TokenGate = (req: IncomingMessage, res: ServerResponse, next: (req: IncomingMessage) => void) => void;

/** The `client_id` a request's budget is kept for, set by the gate before the limiter runs. */
const CLIENT = Symbol('client_id');
type Named = IncomingMessage & { [CLIENT]?: string };

/** Builds the gate placed in front of the token endpoint. */
export function tokenRateLimit(opts: TokenRateLimitOptions): TokenGate {
  const addressOf = sourceAddress(opts.trustProxy);
  const limiter = rateLimit({
    windowMs: opts.windowSeconds * 1000,
    limit: opts.limit,
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: UNAUTHENTICATED_POLICY,
    keyGenerator: (req) => `${addressKey(addressOf(req))} ${(req as Named)[CLIENT] ?? ''}`,
    store: rateLimitStore(opts.redis, 'token-failures'),
    passOnStoreError: true,
    // The issuer is not Express: addresses come from proxy-addr (sourceAddress), not `req.ip`.
    validate: { trustProxy: false, xForwardedForHeader: false, ip: false, keyGeneratorIpFallback: false },
    logger: limiterLogger(opts.log),
    handler: (_req, res) => {
      const retryAfter = String(res.getHeader('Retry-After') ?? opts.windowSeconds);
      res.writeHead(429, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'retry-after': retryAfter });
      res.end(
        JSON.stringify({
          error: 'temporarily_unavailable',
          error_description: `too many failed token requests for this client from this address (${opts.limit} per ${opts.windowSeconds} s); retry after ${retryAfter} s`,
        }),
      );
    },
  });
  return (req, res, next) =>
    void tokenClient(req).then(({ clientId, request }) => {
      (request as Named)[CLIENT] = clientId;
      void limiter(request as Request, withAppend(res), (err?: unknown) => {
        // A fault of the limiter itself must not take the token endpoint down with it.
        if (err) opts.log.error({ err }, 'token rate limit failed; request let through');
        next(request);
      });
    });
}

/**
 * express-rate-limit adds its headers with Express's `res.append`; the issuer serves plain Node
 * responses, so the one method it needs is provided here.
 */
function withAppend(res: ServerResponse): Response {
  const out = res as Response;
  out.append ??= (field: string, value?: string[] | string) => {
    const previous = res.getHeader(field);
    const values = [previous ?? [], value ?? []].flat().map(String);
    res.setHeader(field, values.length === 1 ? values[0]! : values);
    return out;
  };
  return out;
}
