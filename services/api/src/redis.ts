/**
 * The optional Redis connection of the API (`REDIS_URL`), used for a rate-limit budget shared by
 * several API instances. Commands fail fast while the connection is down (no offline queue), so a
 * Redis outage degrades rate limiting instead of stalling requests.
 */
import type { Logger } from '@dms/logger';

/** A connected node-redis client. */
export type RedisConnection = Awaited<ReturnType<typeof connectRedis>>;

/**
 * Connects to `url`, retrying with a capped backoff until Redis answers (the service does not
 * start without a dependency it was configured to use). Connection errors are logged without the
 * URL, which may carry a password.
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
