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
  /** A tenant with a client of all scopes (its credentials), its token from this issuer and an agent on this API. */
  signedInTenant(): Promise<{ tenantId: string; api: ReturnType<typeof apiAs>; client: { clientId: string; clientSecret: string } }>;
  /** An agent on this API with a token this issuer gave `client` (a client made on this database, by this or an earlier system). */
  agentFor(client: { clientId: string; clientSecret: string }): Promise<ReturnType<typeof apiAs>>;
  /** Stops its services and closes the pool (the database is the caller's). */
  stop(): Promise<void>;
}

/** What a system may differ in from the suite's: settings, and the ports of an earlier system (so its clients' audience stays valid). */
export interface OwnSystemOptions {
  env?: Record<string, string>;
  ports?: { auth: number; api: number };
}

/** Migrates the database at `databaseUrl` and starts the issuer and the API on it. */
export async function startOwnSystem(databaseUrl: string, opts: OwnSystemOptions = {}): Promise<OwnSystem & { ports: { auth: number; api: number } }> {
  const db = createDb(databaseUrl, 3);
  await migrateLatest(db);
  const authPort = opts.ports?.auth ?? (await freePort());
  const apiPort = opts.ports?.api ?? (await freePort());
  const env: Record<string, string> = {
    ...SERVICE_ENV,
    DATABASE_URL: databaseUrl,
    AUTH_ISSUER: `http://127.0.0.1:${authPort}`,
    API_AUDIENCE: `http://127.0.0.1:${apiPort}`,
    PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
    DATA_DIR: await mkdtemp(join(tmpdir(), 'dms-own-system-')),
    ...opts.env,
  };
  const services: RunningService[] = [];
  try {
    services.push(await startService('auth', env, authPort), await startService('api', env, apiPort));
  } catch (err) {
    await Promise.all(services.map((s) => s.stop('SIGKILL')));
    await db.destroy();
    throw err;
  }
  const agentFor = async (client: { clientId: string; clientSecret: string }) =>
    apiAs(await tokenFor(client, { audience: env.API_AUDIENCE, issuer: env.AUTH_ISSUER }), env.API_AUDIENCE);
  return {
    env,
    db,
    ports: { auth: authPort, api: apiPort },
    async signedInTenant() {
      const box = new SecretBox(env.SECRETS_KEY!);
      const tenant = await createTenant(db, 'Own Tenant');
      const made = await createClient(db, box, { issuer: env.AUTH_ISSUER!, audience: env.API_AUDIENCE! }, { tenantId: tenant.id, name: 'tests' });
      const client = { clientId: made.client_id, clientSecret: made.client_secret };
      return { tenantId: tenant.id, api: await agentFor(client), client };
    },
    agentFor,
    async stop() {
      await Promise.all(services.map((s) => s.stop()));
      await db.destroy();
    },
  };
}
