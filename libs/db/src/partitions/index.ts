/**
 * Time partitions of the history tables (docs/api.md section 11): `events`, `webhook_deliveries`
 * and `webhook_delivery_attempts` are range-partitioned by the creation time of the event they
 * belong to (`created_at`, and `delivery_created_at` for attempts), so one time range of all
 * three lives in three partitions that are created ahead together and dropped together once the
 * retention window has passed them: never a row-by-row DELETE.
 *
 * Partitions may have different widths (the migration's are one day; the maintenance job uses its
 * configured width from the last bound on), and are named `<table>_p<start as YYYYMMDDTHHMMSS>`.
 * There is no default partition: a row outside every partition is refused, so the job keeps
 * `ahead` partitions of runway (at the default width, a week).
 */
import type { Knex } from 'knex';

/** The partitioned tables and their partition key, in the order partitions are dropped. */
export const PARTITIONED_TABLES = [
  { table: 'webhook_delivery_attempts', key: 'delivery_created_at' },
  { table: 'webhook_deliveries', key: 'created_at' },
  { table: 'events', key: 'created_at' },
] as const;

/** List counters kept by row triggers, which a dropped partition's rows leave behind. */
const COUNTED: Readonly<Record<string, { list: string; parent: string }>> = {
  events: { list: 'events', parent: `''` },
  webhook_deliveries: { list: 'webhook_deliveries', parent: 'endpoint_id' },
};

/** One partition: its name and range `[from, to)`. */
export interface PartitionRange {
  name: string;
  from: Date;
  to: Date;
}

/** `events_p20261121T000000`: the table and the partition's start, UTC. */
export function partitionName(table: string, from: Date): string {
  return `${table}_p${from.toISOString().replace(/[-:]/g, '').slice(0, 15)}`;
}

/**
 * The partitions of `table`, oldest first, read from the catalogue.
 * @returns ranges with their bounds as dates
 */
export async function listPartitions(db: Knex | Knex.Transaction, table: string): Promise<PartitionRange[]> {
  const { rows } = await db.raw(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = ?::regclass`,
    [table],
  );
  return (rows as Array<{ name: string; bound: string }>)
    .map((r) => {
      const [from, to] = [...r.bound.matchAll(/'([^']+)'/g)].map((m) => new Date(m[1]!));
      return { name: r.name, from: from!, to: to! };
    })
    .sort((a, b) => a.from.getTime() - b.from.getTime());
}

/** Where new partitions of a table start: the last partition's upper bound, or `from` when it has none. */
function runwayEnd(existing: readonly PartitionRange[], from: Date): Date {
  return existing.length ? existing[existing.length - 1]!.to : from;
}

/** The partitions whose whole range ended before `before` (they hold only rows past retention). */
function expired(existing: readonly PartitionRange[], before: Date): PartitionRange[] {
  return existing.filter((p) => p.to <= before);
}

/**
 * Creates partitions `[from, from + width)`, … of every partitioned table until they reach `until`
 * (the three tables get the same ranges). Starts at the last partition's upper bound, or at
 * `from` when a table has none.
 * @param widthSeconds width of each new partition
 * @returns the names created
 */
export async function createPartitionsUntil(db: Knex | Knex.Transaction, from: Date, until: Date, widthSeconds: number): Promise<string[]> {
  const created: string[] = [];
  for (const { table } of PARTITIONED_TABLES) {
    let start = runwayEnd(await listPartitions(db, table), from);
    while (start < until) {
      const end = new Date(start.getTime() + widthSeconds * 1000);
      const name = partitionName(table, start);
      // DDL takes no bind parameters; the bounds are ISO 8601 texts made here from dates.
      await db.raw(`CREATE TABLE ?? PARTITION OF ?? FOR VALUES FROM ('${start.toISOString()}') TO ('${end.toISOString()}')`, [name, table]);
      created.push(name);
      start = end;
    }
  }
  return created;
}

/**
 * Drops every partition whose whole range ended before `before`, in one transaction per range,
 * attempts first (savepoints when `db` is already a transaction). The list counters (`X-Total-Count`) of events and deliveries are reduced by the
 * rows each dropped partition held, in the same transaction, so totals stay exact.
 * @returns the names dropped
 */
export async function dropPartitionsBefore(db: Knex | Knex.Transaction, before: Date): Promise<string[]> {
  const dropped: string[] = [];
  for (const { table } of PARTITIONED_TABLES) {
    const old = expired(await listPartitions(db, table), before);
    for (const p of old) {
      await db.transaction(async (trx) => {
        const counted = COUNTED[table];
        if (counted) {
          await trx.raw(
            `SELECT bump_list_counter(tenant_id, ?, parent, -n) FROM (SELECT tenant_id, ${counted.parent} AS parent, count(*) AS n FROM ?? GROUP BY 1, 2) gone`,
            [counted.list, p.name],
          );
        }
        await trx.raw(`ALTER TABLE ?? DETACH PARTITION ??`, [table, p.name]);
        await trx.raw(`DROP TABLE ??`, [p.name]);
      });
      dropped.push(p.name);
    }
  }
  return dropped;
}

/** Settings of one maintenance run. */
export interface RetentionPolicy {
  /** Rows older than this are dropped (with their whole partition), seconds. */
  retentionSeconds: number;
  /** Width of new partitions, seconds. */
  partitionSeconds: number;
  /** How many partitions of runway to keep ahead of now. */
  ahead: number;
}

/**
 * True when a maintenance run would change something: a table whose partitions (or `from`, when it
 * has none) end before `until`, or one holding a partition that ended before `before`, as
 * `createPartitionsUntil` and `dropPartitionsBefore` decide. Reads only the catalogue, so it takes
 * no lock on the tables.
 */
async function maintenanceDue(db: Knex, from: Date, until: Date, before: Date): Promise<boolean> {
  for (const { table } of PARTITIONED_TABLES) {
    const existing = await listPartitions(db, table);
    if (runwayEnd(existing, from) < until || expired(existing, before).length) return true;
  }
  return false;
}

/**
 * One maintenance run: partitions created `ahead` widths past `now`, and those entirely older
 * than the retention window dropped. Several processes may run it at once: a transaction-level
 * advisory lock lets one through at a time, and the others skip.
 *
 * A run with nothing to do (every run but about one a partition width) ends after reading the
 * catalogue, without locking the tables: the exclusive locks below would otherwise stop every
 * writer of events for as long as this transaction lasts, at each worker start and each tick.
 * @returns what was created and dropped (both empty when nothing was due), or null when another
 *   process was running it
 */
export async function maintainPartitions(db: Knex, policy: RetentionPolicy, now = new Date()): Promise<{ created: string[]; dropped: string[] } | null> {
  const from = floorTo(now, policy.partitionSeconds);
  const until = new Date(now.getTime() + policy.ahead * policy.partitionSeconds * 1000);
  const before = new Date(now.getTime() - policy.retentionSeconds * 1000);
  if (!(await maintenanceDue(db, from, until, before))) return { created: [], dropped: [] };
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw(`SELECT pg_try_advisory_xact_lock(hashtext('dms_partition_maintenance')) AS got`);
    if (!rows[0].got) return null;
    // Creating, detaching and dropping partitions lock the parent tables exclusively (and only
    // them: migration 022 removed the history's foreign keys, which made them lock `tenants` too).
    // Writers lock them in the order an event flows (events, then its deliveries, then their
    // attempts); taking all three up front in that same order means maintenance waits its turn
    // instead of deadlocking with them, and a short lock timeout keeps writers from queueing behind it: a run
    // that cannot get the locks fails and the next tick tries again.
    await trx.raw(`SET LOCAL lock_timeout = '2s'`);
    await trx.raw(
      `LOCK TABLE ${[...PARTITIONED_TABLES]
        .reverse()
        .map((t) => t.table)
        .join(', ')} IN ACCESS EXCLUSIVE MODE`,
    );
    // Decided again under the locks: another process may have done the work meanwhile.
    const created = await createPartitionsUntil(trx, from, until, policy.partitionSeconds);
    const dropped = await dropPartitionsBefore(trx, before);
    return { created, dropped };
  });
}

/** `at` rounded down to a multiple of `seconds` since the epoch (UTC midnight for a day). */
export function floorTo(at: Date, seconds: number): Date {
  const ms = seconds * 1000;
  return new Date(Math.floor(at.getTime() / ms) * ms);
}
