/**
 * Keeps the issuer's view of the database current over one LISTEN connection (docs/api.md
 * section 2: key rotation without downtime, client changes at once):
 * - signing keys: an immediate reload after `keys rotate` (SIGNING_KEYS_CHANNEL), with a periodic
 *   reload as the fallback when a notification is missed (connection drop, failover);
 * - clients: each client change (OAUTH_CLIENTS_CHANNEL, payload the client_id) drops that client
 *   from the client cache, and the cache is bypassed whenever the connection is down, because a
 *   change made then would not be heard (see client-cache.ts).
 */
import { listenWithReconnect, type Listener } from '@dms/db';
import type { Logger } from '@dms/logger';
import { OAUTH_CLIENTS_CHANNEL } from '../domain/clients.js';
import { SIGNING_KEYS_CHANNEL } from '../domain/signing-keys.js';
import type { ClientCache } from './client-cache.js';

/** Handle to stop watching. */
export type ChangeWatcher = Listener;

/** What the watcher keeps current. */
export interface ChangeWatcherOptions {
  databaseUrl: string;
  /** Interval of the fallback key reload, seconds. */
  pollSeconds: number;
  /** Reloads the signing keys; errors are logged, never thrown (the issuer keeps the keys it has). */
  reloadKeys: () => Promise<void>;
  clients: ClientCache;
  log: Logger;
}

/**
 * Starts listening. The client cache stays suspended until the LISTEN is in place; after every
 * (re)connect the keys are reloaded and the cache resumes empty (anything may have changed).
 */
export function watchIssuerChanges({ databaseUrl, pollSeconds, reloadKeys, clients, log }: ChangeWatcherOptions): ChangeWatcher {
  const safeReload = () => void reloadKeys().catch((err) => log.error({ err }, 'signing key reload failed'));
  const listener = listenWithReconnect({
    databaseUrl,
    channel: [SIGNING_KEYS_CHANNEL, OAUTH_CLIENTS_CHANNEL],
    log,
    applicationName: 'dms-auth-listen',
    onNotify: (payload, channel) => {
      if (channel === OAUTH_CLIENTS_CHANNEL) return clients.invalidate(payload || undefined);
      if (channel === undefined) clients.resume();
      safeReload();
    },
    onLost: () => clients.suspend(),
  });
  const timer = setInterval(safeReload, pollSeconds * 1000);
  timer.unref();

  return {
    async close() {
      clearInterval(timer);
      await listener.close();
      clients.suspend();
    },
  };
}
