/**
 * The stop signals of a service process, handled once per process: SIGTERM (what platforms send
 * before killing a pod or container, docs/api.md section 1) and SIGINT (Ctrl-C). Shared by the
 * lone or worker process (`runHttpService`) and the cluster primary (`runWorkers`).
 */

/** Signals that ask a service process to drain and exit. */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** One of `STOP_SIGNALS`. */
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Seconds after the grace period at which a signalled process exits even if cleanup hangs. */
export const HARD_EXIT_MARGIN_SECONDS = 5;

/**
 * Calls `stop` on the first SIGTERM or SIGINT the process receives, and keeps both signals handled
 * afterwards: every later one is ignored. A second signal is ordinary, not a mistake: Ctrl-C in a
 * terminal (or `kill -- -<pgid>`) signals every process of the group, and a cluster primary
 * passes the signal on to its workers as well, so each worker receives it twice. Without a
 * listener left (a `process.once` handler), that second signal would kill the process by the
 * signal's default action in the middle of its drain.
 * @param stop called once, with the first signal received
 */
export function onStopSignal(stop: (signal: StopSignal) => void): void {
  let received: StopSignal | undefined;
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (received) return;
      received = signal;
      stop(signal);
    });
  }
}
