/**
 * Open-loop load at a constant rate: operation `i` is due at `start + i / rate` whatever the
 * previous ones took (at most `maxInFlight` at once; when that many are outstanding the next
 * waits, and the achieved rate shows the shortfall). Nothing new starts after the duration, so a
 * slow service shortens the load instead of stretching the run.
 */

/** Running totals of a paced load, readable while it runs. */
export interface PacedLoad {
  ok: number;
  failed: number;
  /** Operations that were never started because the duration had passed first. */
  skipped: number;
  /** The first failure messages (up to 5) with how often each occurred. */
  errors: Map<string, number>;
  /** Latency of each successful operation, ms, in completion order. */
  latencies: number[];
  /** Resolves when the last operation has finished. */
  done: Promise<void>;
}

/**
 * Starts `send(i)` at `rate` per second for `durationSec` seconds.
 * @returns the running totals; `done` resolves after the last operation completed (never rejects)
 */
export function paced(rate: number, durationSec: number, maxInFlight: number, send: (i: number) => Promise<void>): PacedLoad {
  const load: PacedLoad = { ok: 0, failed: 0, skipped: 0, errors: new Map(), latencies: [], done: Promise.resolve() };
  const run = async () => {
    const total = Math.round(rate * durationSec);
    const inFlight = new Set<Promise<void>>();
    const started = Date.now();
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
      if (Date.now() - started > durationSec * 1000) {
        load.skipped = total - i;
        break;
      }
      const t0 = performance.now();
      const op: Promise<void> = send(i).then(
        () => {
          load.ok++;
          load.latencies.push(performance.now() - t0);
        },
        (err: Error) => {
          load.failed++;
          const key = err.message.slice(0, 200);
          if (load.errors.has(key) || load.errors.size < 5) load.errors.set(key, (load.errors.get(key) ?? 0) + 1);
        },
      );
      const tracked = op.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    }
    await Promise.all(inFlight);
  };
  load.done = run();
  return load;
}
