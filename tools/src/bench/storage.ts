/**
 * On-disk size of the time-partitioned history tables (events, webhook deliveries, delivery
 * attempts; docs/api.md section 11) sampled over a run, and its summary per retention window.
 */
import { PARTITIONED_TABLES, type Knex } from '@dms/db';
import { fmt, type SizePoint } from './model.js';

/** A sample with the figures of each table: name → bytes, rows and partitions. */
export interface StoragePoint extends SizePoint {
  tables: Record<string, { bytes: number; rows: number; partitions: number }>;
  /** Deliveries the receiver had received (cumulative). */
  received: number;
}

/** Figures of one window of a run, from the samples taken inside it. */
export interface WindowSummary {
  index: number;
  from: number;
  to: number;
  samples: number;
  meanBytes: number;
  minBytes: number;
  maxBytes: number;
  /** Mean rows of each table inside the window. */
  meanRows: Record<string, number>;
  /** Mean on-disk size of each table inside the window, bytes. */
  meanTableBytes: Record<string, number>;
  meanPartitions: number;
  /** Cumulative events written, and deliveries received, at the last sample of the window. */
  writtenAtEnd: number;
  receivedAtEnd: number;
  /** Events written per second inside the window. */
  rate: number;
}

const TABLES = PARTITIONED_TABLES.map((t) => t.table);

/**
 * Reads the size (pg_total_relation_size: heap, TOAST and indexes, summed over the leaf
 * partitions of pg_partition_tree), row count and partition count of each partitioned table.
 */
export async function measureStorage(db: Knex): Promise<StoragePoint['tables']> {
  const { rows: sizes } = await db.raw(
    `SELECT t.rel AS name, count(*) FILTER (WHERE p.isleaf) AS partitions,
            coalesce(sum(pg_total_relation_size(p.relid)) FILTER (WHERE p.isleaf), 0) AS bytes
       FROM unnest(?::text[]) AS t(rel), LATERAL pg_partition_tree(t.rel::regclass) p
      GROUP BY 1`,
    [TABLES],
  );
  const { rows: counts } = await db.raw(`SELECT ${TABLES.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(', ')}`);
  const out: StoragePoint['tables'] = {};
  for (const s of sizes as Array<{ name: string; partitions: string; bytes: string }>) {
    out[s.name] = { bytes: Number(s.bytes), rows: Number((counts[0] as Record<string, string>)[s.name]), partitions: Number(s.partitions) };
  }
  return out;
}

/** Samples `measureStorage` on an interval (start → stop), with the caller's cumulative counters. */
export class StorageSampler {
  readonly #db: Knex;
  readonly #counters: () => Promise<{ written: number; received: number }>;
  readonly #points: StoragePoint[] = [];
  #started = 0;
  #timer: NodeJS.Timeout | undefined;
  #pending: Promise<void> = Promise.resolve();
  /** Samples that failed (e.g. a partition dropped while it was measured); skipped. */
  failed = 0;

  constructor(db: Knex, counters: () => Promise<{ written: number; received: number }>) {
    this.#db = db;
    this.#counters = counters;
  }

  /** Takes a sample now and then every `intervalSec`; `onSample` sees each one (progress lines). */
  start(intervalSec: number, onSample: (p: StoragePoint) => void = () => {}): this {
    this.#started = Date.now();
    const take = () => {
      this.#pending = this.#pending.then(() => this.#sample().then(onSample)).catch(() => void this.failed++);
    };
    take();
    this.#timer = setInterval(take, intervalSec * 1000);
    return this;
  }

  /** Takes a last sample, stops, and returns every sample in order. */
  async stop(): Promise<StoragePoint[]> {
    clearInterval(this.#timer);
    this.#pending = this.#pending.then(() => this.#sample().then(() => {})).catch(() => void this.failed++);
    await this.#pending;
    return this.#points;
  }

  async #sample(): Promise<StoragePoint> {
    const t = (Date.now() - this.#started) / 1000;
    const [tables, counters] = await Promise.all([measureStorage(this.#db), this.#counters()]);
    const values = Object.values(tables);
    const point: StoragePoint = {
      t,
      bytes: values.reduce((a, v) => a + v.bytes, 0),
      rows: values.reduce((a, v) => a + v.rows, 0),
      written: counters.written,
      received: counters.received,
      tables,
    };
    this.#points.push(point);
    return point;
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * Splits the samples into `count` windows of `windowSec` (a sample at exactly the end of the run
 * counts in the last window) and summarises each.
 * @throws when a window has no sample
 */
export function summariseWindows(points: StoragePoint[], windowSec: number, count: number): WindowSummary[] {
  const out: WindowSummary[] = [];
  let before = points[0];
  for (let k = 0; k < count; k++) {
    const [from, to] = [k * windowSec, (k + 1) * windowSec];
    const inside = points.filter((p) => p.t >= from && (p.t < to || (k === count - 1 && p.t <= to + windowSec / 10)));
    if (!inside.length) throw new Error(`no storage sample in window ${k + 1}`);
    const last = inside[inside.length - 1]!;
    const first = before ?? inside[0]!;
    out.push({
      index: k + 1,
      from,
      to,
      samples: inside.length,
      meanBytes: mean(inside.map((p) => p.bytes)),
      minBytes: Math.min(...inside.map((p) => p.bytes)),
      maxBytes: Math.max(...inside.map((p) => p.bytes)),
      meanRows: Object.fromEntries(TABLES.map((t) => [t, mean(inside.map((p) => p.tables[t]?.rows ?? 0))])),
      meanTableBytes: Object.fromEntries(TABLES.map((t) => [t, mean(inside.map((p) => p.tables[t]?.bytes ?? 0))])),
      meanPartitions: mean(inside.map((p) => Object.values(p.tables).reduce((a, v) => a + v.partitions, 0))),
      writtenAtEnd: last.written,
      receivedAtEnd: last.received,
      rate: last.t > first.t ? (last.written - first.written) / (last.t - first.t) : NaN,
    });
    before = last;
  }
  return out;
}

/**
 * The largest heap among the event partitions against their median, as a sentence for the report:
 * rows arriving in a burst into a fresh partition (after writes were held up) make PostgreSQL
 * extend its file by many pages at once.
 * @returns '' when no partition holds rows
 */
export async function heapSpread(db: Knex): Promise<string> {
  const { rows } = await db.raw(
    `SELECT c.relname AS name, pg_relation_size(c.oid) AS heap, s.n_live_tup + s.n_dead_tup AS tuples
       FROM pg_partition_tree('events') p JOIN pg_class c ON c.oid = p.relid JOIN pg_stat_user_tables s ON s.relid = c.oid
      WHERE p.isleaf AND pg_relation_size(c.oid) > 0 ORDER BY 2 DESC`,
  );
  const list = rows as Array<{ name: string; heap: string; tuples: string }>;
  if (!list.length) return '';
  const kib = (b: string) => `${fmt(Number(b) / 1024)} KiB`;
  const median = list[Math.floor(list.length / 2)]!;
  return (
    `Heap of the event partitions at the end: median ${kib(median.heap)} (${fmt(Number(median.tuples))} tuples), largest \`${list[0]!.name}\` ` +
    `${kib(list[0]!.heap)} (${fmt(Number(list[0]!.tuples))} tuples): rows that arrive in a burst into a fresh partition (after writes were held ` +
    "up, here by the retention job's locks) make PostgreSQL extend the file by many pages at once, so the size swings more than the rows."
  );
}
