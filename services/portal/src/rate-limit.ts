/**
 * Rate limits of the portal (docs/api.md section 18), with express-rate-limit over the budgets
 * `PortalRateLimits` declares (settings `PORTAL_RATE_LIMIT_*`, config.ts), counted in a fixed
 * window of `windowSeconds`:
 *
 * - opening a link (`GET /l/:token`) and answering its check (`POST /verify`): `perLink` opens of each
 *   link (keyed by the token's SHA-256) and `perLink` answers for each link (the session's pending
 *   link), and `perAddress` of both together for each source address;
 * - every POST (forms, payment, sign-out; not the provider's signed callback): `posts` per address.
 *
 * Over a budget the page is 429 `rate-limited` (in the page's language) with `Retry-After` in
 * seconds. Budgets live in Redis when a connection is given (`REDIS_URL`: one budget shared by every
 * portal instance, under `dms:portal-<budget>:`, the store of @dms/rate-limit the API and the
 * issuer use), else in the process's memory (one budget per portal process). If Redis fails
 * mid-flight requests pass unlimited and the failure is logged, as in the API. Addresses are found
 * behind `trustProxy` as the API does (`sourceAddress` of @dms/rate-limit), never logged.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Logger } from '@dms/logger';
import { addressKey, limiterLogger, rateLimitStore, sourceAddress, type RedisConnection } from '@dms/rate-limit';
import { render } from './render.js';

/** The portal's budgets: requests per key per window. */
export interface PortalRateLimits {
  /** Link opens and verification attempts per link. */
  perLink: number;
  /** Link opens and verification attempts per source address. */
  perAddress: number;
  /** POSTs of any page per source address. */
  posts: number;
  /** Window length, seconds. */
  windowSeconds: number;
  /** `TRUST_PROXY`: peers whose X-Forwarded-For is believed. */
  trustProxy: string;
}

/** Where the budgets live: Redis when `redis` is given (shared by instances), else memory; `log` gets store failures. */
export interface PortalRateLimitStore {
  redis?: RedisConnection;
  log: Logger;
}

/** One limiter named `name` (its Redis prefix) keyed by `key` (requests whose key is undefined are not counted). */
function limiter(
  limits: PortalRateLimits,
  where: PortalRateLimitStore,
  name: string,
  limit: number,
  key: (req: Request) => string | undefined,
): RequestHandler {
  return rateLimit({
    windowMs: limits.windowSeconds * 1000,
    limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (req) => key(req) ?? '',
    skip: (req) => key(req) === undefined,
    store: rateLimitStore(where.redis, `portal-${name}`),
    passOnStoreError: true,
    logger: limiterLogger(where.log),
    validate: { trustProxy: false, xForwardedForHeader: false, ip: false, keyGeneratorIpFallback: false },
    handler: (req, res) => {
      const seconds = Number(res.getHeader('Retry-After') ?? limits.windowSeconds);
      res.set('Retry-After', String(seconds));
      void render(req, res, 'rate-limited', { minutes: Math.max(1, Math.ceil(seconds / 60)) }, 429);
    },
  });
}

/** The limiters, in the order to mount them (before the routes, after the session), with their budgets `where` says. */
export function portalRateLimits(limits: PortalRateLimits, where: PortalRateLimitStore): RequestHandler[] {
  const addressOf = sourceAddress(limits.trustProxy);
  const address = (req: Request) => addressKey(addressOf(req));
  const isOpen = (req: Request) => req.method === 'GET' && /^\/l\/[^/]+$/.test(req.path);
  const isVerify = (req: Request) => req.method === 'POST' && req.path === '/verify';
  const linkOf = (req: Request): string | undefined => {
    if (isOpen(req)) return 'token:' + createHash('sha256').update(req.path.slice(3)).digest('hex');
    if (isVerify(req)) return req.session?.pendingLinkId ? `link:${req.session.pendingLinkId}` : undefined;
    return undefined;
  };
  return [
    limiter(limits, where, 'posts', limits.posts, (req) => (req.method === 'POST' ? address(req) : undefined)),
    limiter(limits, where, 'address', limits.perAddress, (req) => (isOpen(req) || isVerify(req) ? address(req) : undefined)),
    limiter(limits, where, 'link', limits.perLink, linkOf),
  ];
}
