/**
 * Waiting in tests for what another process does (a dispatcher's delivery, a worker's step, a
 * metric a primary gathers from its workers): the one polling loop of the suite, instead of
 * sleeps or timed assertions (STYLE: performance belongs to `npm run bench`). A loaded machine
 * only makes a test slower: the budget is generous and a probe is asked again until it answers.
 */

/** How long `eventually` keeps asking, milliseconds: the whole budget and the pause between probes. */
export interface Patience {
  timeoutMs?: number;
  intervalMs?: number;
}

/** What counts as "not yet" when a probe returns it. */
type NotYet = false | null | undefined;

/**
 * Asks `probe` every `intervalMs` (default 50) until it returns something other than `false`,
 * `null` or `undefined`, and returns that. A probe that throws (an `expect` that does not hold
 * yet, a service still starting) counts as "not yet"; its last error is kept for the failure.
 * @param what what is awaited, for the failure message
 * @param patience the budget in milliseconds (default 30 000), or `{ timeoutMs, intervalMs }`
 * @throws `timed out waiting for: <what>` (with the probe's last error as `cause`) once the budget is spent
 */
export async function eventually<T>(probe: () => T | Promise<T>, what: string, patience: number | Patience = {}): Promise<Exclude<T, NotYet>> {
  const { timeoutMs = 30_000, intervalMs = 50 } = typeof patience === 'number' ? { timeoutMs: patience } : patience;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== false && value !== null && value !== undefined) return value as Exclude<T, NotYet>;
      last = undefined;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) {
      const detail = last instanceof Error ? `: ${last.message}` : '';
      throw new Error(`timed out waiting for: ${what}${detail}`, { cause: last });
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
