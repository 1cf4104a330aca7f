/**
 * LISTEN/NOTIFY wake-up: the outbox notifies channel `events_created` when an event commits, so a
 * waiting dispatcher claims the new deliveries at once instead of at its next poll. The listening
 * connection reconnects after errors; polling covers any notification missed meanwhile.
 */
import pg from 'pg';
import { EVENTS_CHANNEL } from '@dms/db';
import type { Logger } from '@dms/logger';


/** A running listener. */
export interface Wakeup {
  /** True while the LISTEN connection is up. */
  readonly listening: boolean;
  close(): Promise<void>;
}

/**
 * Listens on `EVENTS_CHANNEL` and calls `onNotify` with the notification's payload (the tenant id
 * of the event), or with no argument after (re)connecting, when anything may have been missed.
 * @param retryMs delay before reconnecting after a lost connection
 */
export function listenForEvents(databaseUrl: string, log: Logger, onNotify: (tenantId?: string) => void, retryMs = 1000): Wakeup {
  let client: pg.Client | undefined;
  let closed = false;
  let listening = false;
  let timer: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: databaseUrl, application_name: 'dms-dispatcher-listen' });
    client = c;
    c.on('notification', (n) => onNotify(n.payload));
    c.on('error', (err) => {
      log.warn({ err: { message: err.message } }, 'event listener connection lost');
      lost(c);
    });
    c.on('end', () => lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${EVENTS_CHANNEL}`);
      listening = true;
      // Events may have committed while no connection listened.
      onNotify();
    } catch (err) {
      log.warn({ err: { message: (err as Error).message } }, 'event listener could not connect');
      lost(c);
    }
  };
  const lost = (c: pg.Client) => {
    if (client !== c) return;
    listening = false;
    client = undefined;
    c.removeAllListeners('end');
    c.end().catch(() => {});
    if (!closed) timer = setTimeout(() => void connect(), retryMs);
  };
  void connect();

  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = undefined;
      listening = false;
      await c?.end().catch(() => {});
    },
  };
}
