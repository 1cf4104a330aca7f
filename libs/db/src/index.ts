/**
 * PostgreSQL access for every service: the Knex instance, schema migrations, the reconnecting
 * LISTEN connection (listen.ts), and the embedded local server used when `DATABASE_URL` is unset.
 */
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { databaseRouteSpec, loadConfig, poolTimeoutSpec } from '@dms/config';
import { retryTransactionConflicts } from './conflicts.js';
import { MIGRATIONS } from './migrations/index.js';
import { pgClientClass, type Pooler } from './pg-client.js';

export type { Knex };
export type { CustomTypesConfig } from 'pg';
export { ensureDatabase } from './databases.js';
export { startLocalPostgres, resolveDatabase, EmbeddedPostgresError, type LocalPostgres } from './embedded.js';
export * from './partitions/index.js';
export { listenWithReconnect, type Listener, type ListenOptions, type ListenLog } from './listen.js';
export { retryTransactionConflicts, TRANSACTION_ATTEMPTS } from './conflicts.js';
export { isDatabaseBusy, isDatabaseUnavailable, isTransactionConflict, neverReachedDatabase, isSyncWaitCancelled, SyncCommitUncertainError } from './errors.js';
export { retryWhileUnavailable, type RetryOptions } from './retry.js';
export { SessionTimeZoneError, type Pooler } from './pg-client.js';

// int8 (bigint) columns hold money in minor units and sequence numbers; both stay far below 2^53,
// so they are returned as JS numbers instead of pg's default strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// `date` columns (date_of_birth) stay ISO strings: converting to Date would shift them by time zone.
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

/**
 * node-postgres `types` for one query (its `types` option) that leave `timestamptz` columns as the
 * text PostgreSQL sent, e.g. `2026-01-31 12:00:00.123456+00` in the UTC sessions of `createDb`,
 * instead of parsing each into a `Date`; other types parse as usual. For hot reads whose timestamps
 * are only written back out as text (the API's list pages: its `iso` rewrites this text to RFC 3339).
 */
export const TEXT_TIMESTAMPS: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === (pg.types.builtins.TIMESTAMPTZ as number)
      ? (v: string) => v
      : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * LISTEN/NOTIFY channel on which the outbox announces committed events (payload: tenant id) and
 * dispatchers listen; shared here because the API and the dispatcher are separate processes.
 */
export const EVENTS_CHANNEL = 'events_created';

/** Time limits of a pool, milliseconds; 0 turns one off. */
export interface PoolTimeouts {
  /** PostgreSQL `statement_timeout` of each connection (includes time spent waiting for locks). */
  statementTimeoutMs: number;
  /** PostgreSQL `lock_timeout` of each connection: the longest wait for one lock. */
  lockTimeoutMs: number;
  /** Longest wait for a free connection of the pool before Knex throws `KnexTimeoutError`. */
  acquireTimeoutMs: number;
}

/**
 * The pool time limits set in `env` (`DATABASE_STATEMENT_TIMEOUT_MS`, `DATABASE_LOCK_TIMEOUT_MS`,
 * `DATABASE_ACQUIRE_TIMEOUT_MS`, with their defaults: 30 s, 5 s, 3 s).
 * @throws ConfigError when one is malformed (services validated them at start already)
 */
export function poolTimeoutsFromEnv(env: NodeJS.ProcessEnv = process.env): PoolTimeouts {
  const cfg = loadConfig(poolTimeoutSpec(), env, false);
  return {
    statementTimeoutMs: cfg.DATABASE_STATEMENT_TIMEOUT_MS,
    lockTimeoutMs: cfg.DATABASE_LOCK_TIMEOUT_MS,
    acquireTimeoutMs: cfg.DATABASE_ACQUIRE_TIMEOUT_MS,
  };
}

/**
 * What `DATABASE_POOLER` in `env` says DATABASE_URL leads to: `none` (PostgreSQL, or a session
 * pooler) or `transaction` (a transaction-mode pooler: deploy/README.md, "High availability").
 * @throws ConfigError when it is neither
 */
export function poolerFromEnv(env: NodeJS.ProcessEnv = process.env): Pooler {
  return loadConfig({ DATABASE_POOLER: databaseRouteSpec().DATABASE_POOLER }, env, false).DATABASE_POOLER;
}

/**
 * False behind a transaction-mode pooler (`DATABASE_POOLER=transaction`): a statement prepared
 * under a name on one server connection is unknown on the next (PgBouncer before 1.21), so
 * statements must be sent unnamed there (parsed and planned each time).
 */
export function namedStatementsAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return poolerFromEnv(env) === 'none';
}

/**
 * Creates a Knex instance for `url`. Every connection carries `statement_timeout` and
 * `lock_timeout` and runs in UTC (`TimeZone`; all sent as start-up parameters, so no extra round
 * trip): timestamps come as UTC text (TEXT_TIMESTAMPS), and `current_date` is the UTC date, the
 * day the worker's clock counts in whatever the server's own zone. Behind a transaction-mode
 * pooler (`DATABASE_POOLER=transaction`), which passes no start-up setting, the database role's
 * defaults carry them instead, and each new connection checks that it runs in UTC. Waiting for a
 * free connection is bounded: a blocked table or an exhausted pool fails fast with PostgreSQL error
 * 57014 / 55P03 or `KnexTimeoutError` instead of hanging the caller (the API answers 503). A commit
 * whose wait for a synchronous standby was cancelled rejects with SyncCommitUncertainError rather
 * than succeeding (pg-client.ts). A top-level transaction rolled back as a deadlock's victim or for
 * a serialization failure runs again, up to three runs (conflicts.ts).
 * @param url PostgreSQL connection string
 * @param poolMax maximum connections this process opens
 * @param timeouts time limits; by default those of the environment (`poolTimeoutsFromEnv`)
 * @param pooler what `url` leads to; by default `DATABASE_POOLER` of the environment
 */
export function createDb(url: string, poolMax = 10, timeouts: PoolTimeouts = poolTimeoutsFromEnv(), pooler: Pooler = poolerFromEnv()): Knex {
  const session =
    pooler === 'none'
      ? {
          // pg sends only non-zero values; 0 leaves the server's setting (normally off).
          statement_timeout: timeouts.statementTimeoutMs,
          lock_timeout: timeouts.lockTimeoutMs,
          options: '-c TimeZone=UTC',
        }
      : {};
  const db = knexFactory({
    client: pgClientClass(pooler) as typeof knexFactory.Client,
    // A connect to a server that does not answer (a primary cut off the network) fails after 10 s
    // instead of waiting for TCP to give up, minutes later.
    connection: {
      connectionString: url,
      application_name: process.env.npm_package_name ?? 'dms',
      connectionTimeoutMillis: 10_000,
      ...session,
    } as Knex.PgConnectionConfig,
    pool: { min: 0, max: poolMax, acquireTimeoutMillis: timeouts.acquireTimeoutMs },
  });
  return retryTransactionConflicts(db);
}

type Migration = { up(k: Knex): Promise<void>; down(k: Knex): Promise<void> };

/**
 * Runs a migration step without the pool's time limits: rewriting a large table may take minutes
 * and must wait for the locks it needs. `SET LOCAL` ends with the migration's transaction.
 */
const unlimited = (step: (k: Knex) => Promise<void>) => async (k: Knex) => {
  if (k.isTransaction) await k.raw('SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0');
  await step(k);
};

const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => MIGRATIONS,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => ({ ...migration, up: unlimited(migration.up), down: unlimited(migration.down) }),
};

/**
 * Applies every pending migration. Safe to run from several processes at once: Knex holds a lock
 * table while migrating.
 * @returns names of the migrations applied by this call
 */
export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

/**
 * Applies the pending migrations up to and including `name`, and no later one (migration tests:
 * data written with an older schema, then `migrateLatest`).
 * @param name a migration name of MIGRATIONS, e.g. `009_delivery_success`
 * @returns names of the migrations applied by this call
 * @throws Error when `name` is not a known migration
 */
export async function migrateTo(db: Knex, name: string): Promise<string[]> {
  const until = MIGRATIONS.findIndex(([n]) => n === name);
  if (until < 0) throw new Error(`Unknown migration ${name}`);
  const source: Knex.MigrationSource<[string, Migration]> = { ...migrationSource, getMigrations: async () => MIGRATIONS.slice(0, until + 1) };
  const [, applied] = (await db.migrate.latest({ migrationSource: source })) as [number, string[]];
  return applied;
}

/** True when the database answers `SELECT 1` (readiness probes). */
export async function isReachable(db: Knex): Promise<boolean> {
  try {
    await db.raw('SELECT 1');
    return true;
  } catch {
    return false;
  }
}

/** How busy a pool is: connections in use, idle, requests waiting for one, and its maximum. */
export interface PoolUsage {
  used: number;
  free: number;
  pending: number;
  max: number;
}

/**
 * The current usage of `db`'s pool (tarn, under Knex), for the `db_pool_*` metrics
 * (docs/api.md section 11): a pool whose `used` stays at `max` with `pending` requests is saturated.
 */
export function poolUsage(db: Knex): PoolUsage {
  const pool = (db.client as { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number; max: number } }).pool;
  if (!pool) return { used: 0, free: 0, pending: 0, max: 0 };
  return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires(), max: pool.max };
}
