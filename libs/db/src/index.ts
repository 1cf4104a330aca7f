/**
 * PostgreSQL access for every service: the Knex instance, schema migrations, the reconnecting
 * LISTEN connection (listen.ts), and the embedded local server used when `DATABASE_URL` is unset.
 */
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { MIGRATIONS } from './migrations/index.js';

export type { Knex };
export { startLocalPostgres, resolveDatabase, type LocalPostgres } from './embedded.js';
export { listenWithReconnect, type Listener, type ListenOptions, type ListenLog } from './listen.js';

// int8 (bigint) columns hold money in minor units and sequence numbers; both stay far below 2^53,
// so they are returned as JS numbers instead of pg's default strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// `date` columns (date_of_birth) stay ISO strings: converting to Date would shift them by time zone.
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

/**
 * LISTEN/NOTIFY channel on which the outbox announces committed events (payload: tenant id) and
 * dispatchers listen; shared here because the API and the dispatcher are separate processes.
 */
export const EVENTS_CHANNEL = 'events_created';

/**
 * Creates a Knex instance for `url`.
 * @param url PostgreSQL connection string
 * @param poolMax maximum connections this process opens
 */
export function createDb(url: string, poolMax = 10): Knex {
  return knexFactory({
    client: 'pg',
    connection: { connectionString: url, application_name: process.env.npm_package_name ?? 'dms' },
    pool: { min: 0, max: poolMax },
  });
}

const migrationSource: Knex.MigrationSource<[string, { up(k: Knex): Promise<void>; down(k: Knex): Promise<void> }]> = {
  getMigrations: async () => MIGRATIONS,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
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
 * Creates database `name` on the server of `adminUrl` if it does not exist yet.
 * @param adminUrl a connection string to any database of the server (e.g. `postgres`)
 */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
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
