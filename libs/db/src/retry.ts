/**
 * Retrying statements that are safe to repeat while no primary can serve them (a failover, a
 * restart): the caller decides what is safe (a delete by key, a read); this only waits and tries
 * again.
 */
import { isDatabaseBusy } from './errors.js';

/** Bounds of {@link retryWhileUnavailable}. */
export interface RetryOptions {
  /** Stop retrying once this many milliseconds have passed since the first try (default 30,000). */
  withinMs?: number;
  /** Pause between tries, milliseconds (default 500). */
  delayMs?: number;
}

/**
 * Runs `attempt`; while it fails with an error of `isDatabaseBusy` (no primary, time limits) and
 * `withinMs` has not passed, waits `delayMs` and runs it again. Only for statements whose repetition
 * has the effect of one run.
 * @returns what `attempt` returned
 * @throws the last error: any other error at once, a busy one after `withinMs`
 */
export async function retryWhileUnavailable<T>(attempt: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const { withinMs = 30_000, delayMs = 500 } = opts;
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (!isDatabaseBusy(err) || Date.now() + delayMs > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
