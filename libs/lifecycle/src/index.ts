/**
 * Process lifecycle shared by the three services, their one shutdown wiring: listen, then on
 * SIGTERM/SIGINT drain within a grace period (readiness turns 503, stop accepting, let in-flight
 * requests finish, finish the service's background work, close its pools and clients in order)
 * and exit. Platforms send SIGTERM before killing a pod or container (docs/api.md section 1).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '@dms/logger';
import { HARD_EXIT_MARGIN_SECONDS, onStopSignal, type StopSignal } from './signals.js';

/** How often a draining server closes connections that became idle, milliseconds. */
const IDLE_REAP_MS = 100;

function closeAfterResponse(_req: IncomingMessage, res: ServerResponse): void {
  res.shouldKeepAlive = false;
}

/** Something a service holds open: a pool (Knex's `destroy`), a client or listener (`close`). */
export type Closable = { close(): Promise<unknown> } | { destroy(): Promise<unknown> };

/** What `runHttpService` needs to know about a service. */
export interface ServiceOptions {
  /**
   * The HTTP server, or a function building it from the drain flag (true once shutdown starts),
   * for a server whose readiness probe must answer 503 while draining.
   */
  server: Server | ((isDraining: () => boolean) => Server);
  port: number;
  host?: string;
  log: Logger;
  /** Seconds to wait for in-flight work after SIGTERM before forcing exit. */
  graceSeconds: number;
  /** Called when draining starts (before connections close), e.g. to fail readiness probes. */
  onDrain?: () => void;
  /** Called once the server stopped accepting; finishes background work (before `close`). */
  onShutdown?: () => Promise<void>;
  /** Closed in this order after `onShutdown` (undefined entries: not configured, skipped). */
  close?: ReadonlyArray<Closable | undefined>;
}

async function closeAll(resources: ReadonlyArray<Closable | undefined>): Promise<void> {
  for (const r of resources) {
    if (!r) continue;
    // `close` first: a client with both (node-redis) closes gracefully with it, `destroy` drops.
    await ('close' in r ? r.close() : r.destroy());
  }
}

/** Handle of a running service. */
export interface RunningService {
  /** The port actually bound (useful with port 0). */
  port: number;
  /** Drains and stops the service (what SIGTERM triggers); resolves when done. */
  shutdown(signal?: string): Promise<void>;
  /** True from the moment shutdown starts; readiness probes report 503 then. */
  readonly draining: boolean;
}

/**
 * Starts listening and drains the service on the first SIGTERM or SIGINT (later ones are ignored;
 * one that comes while the port is being bound drains it once bound), then exits 0, or 1 when the
 * drain failed or outlasted the grace period plus `HARD_EXIT_MARGIN_SECONDS`.
 * @returns once the port is bound
 * @throws when the port cannot be bound
 */
export async function runHttpService(opts: ServiceOptions): Promise<RunningService> {
  const { log } = opts;
  let draining = false;
  const server = typeof opts.server === 'function' ? opts.server(() => draining) : opts.server;
  let done: Promise<void> | undefined;
  // Handled from before the port is bound: a signal that comes while binding is kept and drains
  // the service as soon as it listens, so a cluster worker that reported listening to its
  // primary never dies of the signal's default action.
  let listening = false;
  let early: StopSignal | undefined;
  onStopSignal((signal) => (listening ? stopOnSignal(signal) : (early = signal)));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  log.info({ port }, 'listening');

  const shutdown = (signal = 'shutdown'): Promise<void> => {
    if (done) return done;
    draining = true;
    opts.onDrain?.();
    log.info({ signal, grace_seconds: opts.graceSeconds }, 'draining');
    // Requests still arriving on open keep-alive connections are answered with
    // `Connection: close`, so clients reconnect (to another instance) instead of reusing this one.
    server.prependListener('request', closeAfterResponse);
    // A connection whose in-flight request just finished becomes idle; close it then rather than
    // holding the drain open until the grace period runs out.
    const reap = setInterval(() => server.closeIdleConnections(), IDLE_REAP_MS);
    reap.unref();
    const force = setTimeout(() => {
      log.warn('grace period over, closing remaining connections');
      server.closeAllConnections();
    }, opts.graceSeconds * 1000);
    force.unref();
    done = (async () => {
      try {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Idle keep-alive sockets would otherwise hold close() open until they time out.
          server.closeIdleConnections();
        });
      } finally {
        clearInterval(reap);
        clearTimeout(force);
      }
      await opts.onShutdown?.();
      await closeAll(opts.close ?? []);
      log.info('stopped');
    })();
    return done;
  };

  /** One drain per process, whichever stop signal comes first (see `onStopSignal`). */
  function stopOnSignal(signal: StopSignal): void {
    // Last resort: cleanup (closing pools, finishing deliveries) that hangs past the grace
    // period plus a margin must not keep a terminating pod alive until SIGKILL.
    setTimeout(
      () => {
        log.error({ grace_seconds: opts.graceSeconds }, 'shutdown did not finish in time, exiting');
        process.exit(1);
      },
      (opts.graceSeconds + HARD_EXIT_MARGIN_SECONDS) * 1000,
    ).unref();
    shutdown(signal).then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  }
  listening = true;
  if (early) stopOnSignal(early);

  return {
    port,
    shutdown,
    get draining() {
      return draining;
    },
  };
}

export { runWorkers, type WorkersOptions } from './cluster.js';
export { HARD_EXIT_MARGIN_SECONDS, STOP_SIGNALS, onStopSignal, type StopSignal } from './signals.js';
export { SECURITY_HEADERS, answerHeaderOverflow, type OverflowAnswer } from './client-errors.js';
