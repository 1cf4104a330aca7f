/**
 * Keeps the issuer's signing keys current: LISTEN on the key channel for an immediate reload after
 * `keys rotate`, with a periodic reload as the fallback when a notification is missed (connection
 * drop, failover).
 */
import { listenWithReconnect, type Listener } from '@dms/db';
import type { Logger } from '@dms/logger';
import { SIGNING_KEYS_CHANNEL } from '../domain/signing-keys.js';

/** Handle to stop watching. */
export type KeyWatcher = Listener;

/**
 * Calls `reload` on every key-change notification, after every (re)connect of the listener (a
 * rotation may have happened meanwhile) and every `pollSeconds` seconds.
 * Errors of `reload` are logged, never thrown: the issuer keeps signing with the keys it has.
 */
export function watchSigningKeys(databaseUrl: string, pollSeconds: number, reload: () => Promise<void>, log: Logger): KeyWatcher {
  const safeReload = () => void reload().catch((err) => log.error({ err }, 'signing key reload failed'));
  const listener = listenWithReconnect({ databaseUrl, channel: SIGNING_KEYS_CHANNEL, log, onNotify: safeReload, applicationName: 'dms-auth-keys' });
  const timer = setInterval(safeReload, pollSeconds * 1000);
  timer.unref();

  return {
    async close() {
      clearInterval(timer);
      await listener.close();
    },
  };
}
