/**
 * LISTEN/NOTIFY wake-up: the outbox notifies channel `events_created` when an event commits, so a
 * waiting dispatcher claims the new deliveries at once instead of at its next poll. The listening
 * connection reconnects after errors; polling covers any notification missed meanwhile.
 */
import { EVENTS_CHANNEL, listenWithReconnect, type Listener } from '@dms/db';
import type { Logger } from '@dms/logger';

/**
 * Listens on `EVENTS_CHANNEL` and calls `onNotify` with the notification's payload (the tenant id
 * of the event), or with no argument after (re)connecting, when anything may have been missed.
 * @param retryMs delay before reconnecting after a lost connection, in milliseconds
 */
export function listenForEvents(databaseUrl: string, log: Logger, onNotify: (tenantId?: string) => void, retryMs = 1000): Listener {
  return listenWithReconnect({ databaseUrl, channel: EVENTS_CHANNEL, log, onNotify, retryMs, applicationName: 'dms-dispatcher-listen' });
}
