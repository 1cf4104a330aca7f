/**
 * Keeps the issuer's signing keys current: LISTEN on the key channel for an immediate reload after
 * `keys rotate`, with a periodic reload as the fallback when a notification is missed (connection
 * drop, failover).
 */
import pg from 'pg';
import type { Logger } from '@dms/logger';
import { SIGNING_KEYS_CHANNEL } from '../domain/signing-keys.js';

/** Handle to stop watching. */
export interface KeyWatcher {
  close(): Promise<void>;
}

/**
 * Calls `reload` on every key-change notification and every `pollSeconds`.
 * Errors of `reload` are logged, never thrown: the issuer keeps signing with the keys it has.
 */
export function watchSigningKeys(databaseUrl: string, pollSeconds: number, reload: () => Promise<void>, log: Logger): KeyWatcher {
  let client: pg.Client | undefined;
  let closed = false;
  const safeReload = () => reload().catch((err) => log.error({ err }, 'signing key reload failed'));

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: databaseUrl });
    c.on('notification', () => void safeReload());
    c.on('error', (err) => {
      log.warn({ err }, 'key listener connection lost; reconnecting');
      client = undefined;
      setTimeout(() => void connect(), 1000).unref();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${SIGNING_KEYS_CHANNEL}`);
      client = c;
      // A rotation may have happened while disconnected.
      void safeReload();
    } catch (err) {
      log.warn({ err }, 'key listener could not connect; retrying');
      await c.end().catch(() => {});
      setTimeout(() => void connect(), 1000).unref();
    }
  };
  void connect();
  const timer = setInterval(() => void safeReload(), pollSeconds * 1000);
  timer.unref();

  return {
    async close() {
      closed = true;
      clearInterval(timer);
      await client?.end().catch(() => {});
    },
  };
}
