/**
 * Samples what the benchmark database's active sessions are doing (pg_stat_activity: wait event
 * and query) a few times a second during a phase, so a report can say where the time went
 * (row-lock convoys, WAL flushes, CPU) without a profiler.
 */
import type { Knex } from '@dms/db';

/** Samples pg_stat_activity of the benchmark database on an interval (start → stop). */
export class WaitSampler {
  readonly #db: Knex;
  readonly #samples = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #pending: Promise<void> = Promise.resolve();

  constructor(db: Knex) {
    this.#db = db;
  }

  /** Starts sampling every `intervalMs`. */
  start(intervalMs = 200): this {
    this.#timer = setInterval(() => {
      this.#pending = this.#pending.then(() => this.#sample()).catch(() => {});
    }, intervalMs);
    return this;
  }

  /** Stops sampling and returns the `n` most frequent states as `share%  wait — query` lines. */
  async stop(n: number): Promise<string[]> {
    clearInterval(this.#timer);
    await this.#pending;
    const total = [...this.#samples.values()].reduce((a, b) => a + b, 0);
    return [...this.#samples.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, c]) => `${((c / total) * 100).toFixed(0).padStart(3)}%  ${k}`);
  }

  async #sample(): Promise<void> {
    const { rows } = await this.#db.raw(
      `SELECT coalesce(wait_event_type || ':' || wait_event, 'running') AS w, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS q
       FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
    );
    for (const r of rows as Array<{ w: string; q: string }>) {
      const key = `${r.w} — ${r.q}`;
      this.#samples.set(key, (this.#samples.get(key) ?? 0) + 1);
    }
  }
}
