/**
 * Jest global setup: a fresh PostgreSQL database (on `DATABASE_URL`'s server when set, otherwise
 * on an embedded server under `.data/pg-test`, port `EMBEDDED_PG_TEST_PORT`), the schema migrated,
 * then the issuer and the API started as real processes. Their addresses reach the tests through
 * `TEST_*` variables. An embedded server that cannot start fails the run with PostgreSQL's reason.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { embeddedPostgresSpec, loadConfig } from '@dms/config';
import { createDb, ensureDatabase, migrateLatest, startLocalPostgres } from '@dms/db';
import { REPO_ROOT, freePort, startService, type RunningService } from '@dms/tools/processes';

/** What global setup leaves on `globalThis.__DMS__` for global-teardown.ts to stop and drop. */
export interface TestGlobals {
  services: RunningService[];
  stopPg: () => Promise<void>;
  adminUrl: string;
  database: string;
}

/**
 * Jest global setup: a fresh database (on `DATABASE_URL`'s server, else embedded PostgreSQL),
 * migrated, plus auth and api started as child processes; their URLs and environment are passed to
 * the test files in `TEST_*` variables read by harness.ts.
 */
export default async function globalSetup(): Promise<void> {
  const database = `dms_test_${randomBytes(4).toString('hex')}`;
  let url: string;
  let adminUrl: string;
  let stopPg = async () => {};
  if (process.env.DATABASE_URL) {
    const u = new URL(process.env.DATABASE_URL);
    u.pathname = '/postgres';
    adminUrl = u.href;
    await ensureDatabase(adminUrl, database);
    u.pathname = `/${database}`;
    url = u.href;
  } else {
    // A server of its own (distinct from `npm start`'s EMBEDDED_PG_PORT), so both can run at once.
    const pg = await startLocalPostgres({
      dataDir: join(REPO_ROOT, '.data', 'pg-test'),
      port: loadConfig(embeddedPostgresSpec).EMBEDDED_PG_TEST_PORT,
      portSetting: 'EMBEDDED_PG_TEST_PORT',
      database,
    });
    url = pg.url;
    adminUrl = url.replace(/\/[^/]+$/, '/postgres');
    stopPg = pg.stop;
  }
  const db = createDb(url, 2);
  await migrateLatest(db);
  await db.destroy();

  const authPort = await freePort();
  const apiPort = await freePort();
  const env = {
    DATABASE_URL: url,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    AUTH_ISSUER: `http://127.0.0.1:${authPort}`,
    API_AUDIENCE: `http://127.0.0.1:${apiPort}`,
    PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
    ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
    // Dispatchers are not started here: each webhook test file starts its own, limited to its own
    // tenants (DISPATCH_TENANT_IDS), so special settings never meet another file's receivers.
    DISPATCH_SCHEDULE_SECONDS: '0,1,2',
    DISPATCH_POLL_SECONDS: '0.5',
    // Tests drive one client hard; the rate limit itself is tested on extra instances (test/rate-limit).
    RATE_LIMIT_PER_MINUTE: '100000',
    TEST_LOG_DIR: join(REPO_ROOT, '.data', 'test-logs', database),
  };
  Object.assign(process.env, env);
  const services = [await startService('auth', env, authPort), await startService('api', env, apiPort)];

  Object.assign(process.env, {
    TEST_DATABASE_URL: url,
    TEST_AUTH_URL: services[0]!.url,
    TEST_API_URL: services[1]!.url,
    TEST_SERVICE_ENV: JSON.stringify(env),
  });
  (globalThis as { __DMS__?: TestGlobals }).__DMS__ = { services, stopPg, adminUrl, database };
}
