/**
 * The system on a database of a test's own (a server the test may crash: crashable-postgres.ts):
 * the schema migrated, then the issuer and the API started on it as real processes, with the
 * suite's settings otherwise (global-setup.ts). Tenants are made as harness.ts makes them, on this
 * database, and their agents talk HTTP to this API.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@dms/auth/domain';
import { createDb, migrateLatest, type Knex } from '@dms/db';
import { createTenant } from '@dms/domain/tenants';
import { SecretBox } from '@dms/secrets';
import { freePort, startService, type RunningService } from '@dms/tools/processes';
import { SERVICE_ENV, apiAs, tokenFor } from './harness.js';

/** The running system on its own database. */
export interface OwnSystem {
  /** Settings of its services (and of any extra one, e.g. a worker, started on it). */
  env: Record<string, string>;
  /** A pool on its database (3 connections), for setup and checks. */
  db: Knex;
  /** A tenant with a client of all scopes, its token from this issuer and an agent on this API. */
  signedInTenant(): Promise<{ tenantId: string; api: ReturnType<typeof apiAs> }>;
  /** Stops its services and closes the pool (the database is the caller's). */
  stop(): Promise<void>;
}

/** Migrates the database at `databaseUrl` and starts the issuer and the API on it. */
export async function startOwnSystem(databaseUrl: string): Promise<OwnSystem> {
  const db = createDb(databaseUrl, 3);
  await migrateLatest(db);
  const authPort = await freePort();
  const apiPort = await freePort();
  const env: Record<string, string> = {
    ...SERVICE_ENV,
    DATABASE_URL: databaseUrl,
    AUTH_ISSUER: `http://127.0.0.1:${authPort}`,
    API_AUDIENCE: `http://127.0.0.1:${apiPort}`,
    PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
    DATA_DIR: await mkdtemp(join(tmpdir(), 'dms-own-system-')),
  };
  const services: RunningService[] = [];
  try {
    services.push(await startService('auth', env, authPort), await startService('api', env, apiPort));
  } catch (err) {
    await Promise.all(services.map((s) => s.stop('SIGKILL')));
    await db.destroy();
    throw err;
  }
  return {
    env,
    db,
    async signedInTenant() {
      const box = new SecretBox(env.SECRETS_KEY!);
      const tenant = await createTenant(db, 'Own Tenant');
      const client = await createClient(db, box, { issuer: env.AUTH_ISSUER!, audience: env.API_AUDIENCE! }, { tenantId: tenant.id, name: 'tests' });
      const token = await tokenFor({ clientId: client.client_id, clientSecret: client.client_secret }, { audience: env.API_AUDIENCE, issuer: env.AUTH_ISSUER });
      return { tenantId: tenant.id, api: apiAs(token, env.API_AUDIENCE) };
    },
    async stop() {
      await Promise.all(services.map((s) => s.stop()));
      await db.destroy();
    },
  };
}
