/**
 * PostgreSQL LISTEN on one or more channels over a dedicated connection that reconnects after
 * errors. NOTIFY is fire-and-forget (PostgreSQL docs, "NOTIFY"): a notification sent while no
 * connection listens is lost, so callers poll as well and treat the call after each (re)connect as
 * "anything may have changed"; callers that cache must also stop trusting the cache from `onLost`
 * until that call. A connection that stops answering without an error (a primary cut off the
 * network, where no FIN or RST arrives) is found by a periodic `SELECT 1` and replaced too.
 */
import pg from 'pg';

/** The part of a pino logger the listener writes to (kept structural so @dms/db needs no logger). */
export interface ListenLog {
  warn(obj: object, msg: string): void;
}

/** Options of {@link listenWithReconnect}. */
export interface ListenOptions {
  /**
   * PostgreSQL connection string; `DATABASE_LISTEN_URL` of the environment replaces it when set
   * (behind a transaction-mode pooler LISTEN needs a session: the primary directly or a session pool).
   */
  databaseUrl: string;
  /** Channel name(s); each must be a plain SQL identifier (it is interpolated into `LISTEN`). */
  channel: string | readonly string[];
  log: ListenLog;
  /**
   * Called with the notification's payload and channel, or with no argument once the LISTEN on
   * every channel is in place after each (re)connect. Must not throw: catch inside.
   */
  onNotify: (payload?: string, channel?: string) => void;
  /**
   * Called once each time the connection is lost or could not be set up: from then until the next
   * `onNotify()` without arguments, notifications may be missed. Must not throw.
   */
  onLost?: () => void;
  /** Delay before reconnecting after a lost or failed connection, in milliseconds (default 1000). */
  retryMs?: number;
  /** `application_name` of the connection, shown in `pg_stat_activity`. */
  applicationName?: string;
  /**
   * Interval of the `SELECT 1` that checks the connection still answers, milliseconds (default
   * 10,000); an answer missing for as long counts as a lost connection. 0 turns it off.
   */
  heartbeatMs?: number;
}

/** A running listener. */
export interface Listener {
  /** Stops reconnecting and closes the connection. */
  close(): Promise<void>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * Opens a connection, runs `LISTEN` on each channel and keeps it up: on an error or end of the
 * connection it logs a warning (message only: the error may carry connection details), calls
 * `onLost` and reconnects after `retryMs`. Never throws after returning.
 * @throws Error synchronously when a channel is not a plain lower-case identifier
 */
export function listenWithReconnect(opts: ListenOptions): Listener {
  const { log, onNotify, onLost, retryMs = 1000, applicationName, heartbeatMs = 10_000 } = opts;
  const databaseUrl = process.env.DATABASE_LISTEN_URL || opts.databaseUrl;
  const channels = typeof opts.channel === 'string' ? [opts.channel] : [...opts.channel];
  const channel = channels.join(',');
  for (const c of channels) if (!IDENTIFIER.test(c)) throw new Error(`invalid LISTEN channel name: ${c}`);
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  // One `SELECT 1` at a time; a reply later than `heartbeatMs` retires the connection.
  const beat = (c: pg.Client) => {
    heartbeat = setTimeout(() => {
      const late = setTimeout(() => {
        log.warn({ channel }, 'listener connection lost: no answer to the heartbeat');
        lost(c);
      }, heartbeatMs).unref();
      c.query('SELECT 1').then(
        () => {
          clearTimeout(late);
          if (client === c) beat(c);
        },
        () => clearTimeout(late), // the connection's error or end handler retires it
      );
    }, heartbeatMs).unref();
  };

  const connect = async () => {
    if (closed) return;
    // A connect to a server that does not answer must fail too, or nothing would retry it.
    const c = new pg.Client({
      connectionString: databaseUrl,
      application_name: applicationName,
      keepAlive: true,
      connectionTimeoutMillis: heartbeatMs || 10_000,
    });
    client = c;
    c.on('notification', (n) => onNotify(n.payload, n.channel));
    c.on('error', (err) => {
      log.warn({ err: { message: err.message }, channel }, 'listener connection lost');
      lost(c);
    });
    c.on('end', () => lost(c));
    try {
      await c.connect();
      for (const name of channels) await c.query(`LISTEN ${name}`);
      if (client !== c) return;
      if (heartbeatMs > 0) beat(c);
      onNotify();
    } catch (err) {
      log.warn({ err: { message: (err as Error).message }, channel }, 'listener could not connect');
      lost(c);
    }
  };
  // Each connection is retired once, whichever of error, end or a failed connect comes first.
  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = undefined;
    clearTimeout(heartbeat);
    c.removeAllListeners('end');
    c.end().catch(() => {});
    onLost?.();
    if (!closed) timer = setTimeout(() => void connect(), retryMs).unref();
  };
  void connect();

  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      clearTimeout(heartbeat);
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
