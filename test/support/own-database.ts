/**
 * A database of its own, on the suite's PostgreSQL server, for a test file that locks or rewrites
 * shared tables (`LOCK TABLE`, partitions created or dropped): done on the suite's database, that
 * would stall the writes of every test file running meanwhile, and on a loaded machine long
 * enough for the suite's API to answer them 503 (no free pooled connection within
 * `DATABASE_ACQUIRE_TIMEOUT_MS`). Extra API instances on it take tokens from the suite's issuer.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ensureDatabase, migrateLatest, createDb, type Knex } from '@dms/db';
import { startService, type RunningService } from '@dms/tools/processes';
import { SERVICE_ENV } from './harness.js';

/** A migrated database of the test file's own, and the API instances it started on it. */
export interface OwnDatabase {
  /** Database name: the suite's, then `_<label>_<random>`. */
  name: string;
  /** Connection string of the database. */
  url: string;
  /** Knex on the database (2 connections), for setup and checks. */
  db: Knex;
  /** Starts an API with the suite's settings, `DATABASE_URL` this database, then `env`; stopped by `drop`. */
  startApi(env?: Record<string, string>): Promise<RunningService>;
  /**
   * Makes tenant `tenantId` (created on the suite's database, where the issuer signs its tokens)
   * exist here too, so that an API on this database accepts its writes.
   */
  addTenant(tenantId: string): Promise<void>;
  /** Stops the APIs, closes `db` and drops the database; call in `afterAll`. */
  drop(): Promise<void>;
}

/**
 * Creates and migrates `<suite database>_<label>_<random>` on the suite's server.
 * @param label names the database after the test file (e.g. `timeouts`)
 */
export async function createOwnDatabase(label: string): Promise<OwnDatabase> {
  const suite = new URL(process.env.TEST_DATABASE_URL!);
  const name = `${suite.pathname.slice(1)}_${label}_${randomBytes(3).toString('hex')}`;
  const adminUrl = Object.assign(new URL(suite.href), { pathname: '/postgres' }).href;
  const url = Object.assign(new URL(suite.href), { pathname: `/${name}` }).href;
  await ensureDatabase(adminUrl, name);
  const db = createDb(url, 2);
  await migrateLatest(db);
  const started: RunningService[] = [];
  return {
    name,
    url,
    db,
    startApi: async (env = {}) => {
      const service = await startService('api', { ...SERVICE_ENV, DATABASE_URL: url, ...env });
      started.push(service);
      return service;
    },
    addTenant: async (tenantId) => {
      await db('tenants').insert({ id: tenantId, name: `Tenant of ${label}` });
    },
    drop: async () => {
      await Promise.all(started.map((s) => s.stop()));
      await db.destroy();
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}
