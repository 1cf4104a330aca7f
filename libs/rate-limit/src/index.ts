/**
 * What the API's and the issuer's rate limits share (docs/api.md section 3): the optional Redis
 * connection (`REDIS_URL`) holding budgets common to several instances, the express-rate-limit
 * store on it, the logger adapter, and the source address of a request behind trusted proxies
 * (`TRUST_PROXY`) for budgets per address.
 */
import type { IncomingMessage } from 'node:http';
import { ipKeyGenerator, type Store } from 'express-rate-limit';
import { LRUCache } from 'lru-cache';
import proxyaddr from 'proxy-addr';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { Logger } from '@dms/logger';

/** A connected node-redis client. */
export type RedisConnection = Awaited<ReturnType<typeof connectRedis>>;

/**
 * Connects to `url`, retrying with a capped backoff until Redis answers (the service does not
 * start without a dependency it was configured to use). Commands fail fast while the connection is
 * down (no offline queue), so a Redis outage degrades rate limiting instead of stalling requests.
 * Connection errors are logged without the URL, which may carry a password.
 */
export async function connectRedis(url: string, log: Logger) {
  // Loaded only when configured: the client and its modules take a noticeable share of start-up.
  const { createClient } = await import('redis');
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 5000, reconnectStrategy: (attempt) => Math.min(100 * 2 ** attempt, 5000) },
  });
  let lastLogged = 0;
  client.on('error', (err: Error) => {
    // One line per 10 s at most: a reconnect loop must not flood the logs.
    if (Date.now() - lastLogged < 10_000) return;
    lastLogged = Date.now();
    log.warn({ err: { message: err.message } }, 'redis unavailable');
  });
  await client.connect();
  log.info('redis connected');
  return client;
}

/**
 * The express-rate-limit store for one limiter: in Redis under `dms:<prefix>:` when a connection
 * is given (budgets shared by every instance), else `undefined` (express-rate-limit's in-memory
 * store, one budget per process). Each limiter needs its own prefix.
 */
export function rateLimitStore(redis: RedisConnection | undefined, prefix: string): Store | undefined {
  if (!redis) return undefined;
  return new RedisStore({
    prefix: `dms:${prefix}:`,
    // node-redis types replies generically; the store's Lua scripts return numbers and arrays.
    sendCommand: (...args: string[]) => redis.sendCommand<RedisReply>(args),
  });
}

/** express-rate-limit's logger interface on top of pino (store failures are logged, not thrown). */
export function limiterLogger(log: Logger) {
  return {
    error: (err: unknown, message?: string) => log.error({ err }, message),
    warn: (err: unknown, message?: string) => log.warn({ err }, message),
  };
}

/**
 * Returns a function giving a request's source address: the peer address, or, when the peer is a
 * trusted proxy, the nearest untrusted address of `X-Forwarded-For` (proxy-addr, as Express's
 * `trust proxy`). A client can therefore not choose its address by sending the header itself.
 * @param trust comma-separated proxy-addr presets (`loopback`, `linklocal`, `uniquelocal`),
 *   addresses or CIDR ranges; empty trusts nobody
 */
export function sourceAddress(trust: string): (req: IncomingMessage) => string {
  const list = trust
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const trusted = proxyaddr.compile(list);
  return (req) => proxyaddr(req, trusted);
}

/** Keys of the most recently seen addresses (10,000 at most), so `addressKey` parses each once. */
const addressKeys = new LRUCache<string, string>({ max: 10_000 });

/**
 * The budget key of a source address: the address itself, or for IPv6 its /56 network (one
 * subscriber usually holds a whole prefix and could otherwise rotate addresses within it).
 * Remembered per address: the IPv6 parsing behind it was a few per cent of the issuer's CPU per
 * token request (IPv4 peers arrive as `::ffff:a.b.c.d` on a dual-stack socket).
 */
export function addressKey(address: string): string {
  let key = addressKeys.get(address);
  if (key === undefined) addressKeys.set(address, (key = ipKeyGenerator(address, 56)));
  return key;
}

/** Name of the per-address budget of requests without valid credentials in `RateLimit` headers (API and issuer). */
export const UNAUTHENTICATED_POLICY = 'unauthenticated';
