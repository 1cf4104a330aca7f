/**
 * What `npm start` (tools/src/start.ts) checks before it starts anything, so that a bad setting
 * stops it with one line naming the setting and what to set (README, "Configuration"), as a
 * service started alone does, never with a stack trace:
 * - every setting, by the specs of @dms/config (`commonSpec`, `startSpec`, `embeddedPostgresSpec`)
 *   and then by each service's own loader (`load<Name>Config` of services/<name>/src/config.ts,
 *   loaded from its build as tools/src/settings.ts does), with the port `npm start` gives it;
 * - that `DATABASE_URL` leads to a PostgreSQL server that answers;
 * - that the secrets key the services will use opens the secrets already stored in the database
 *   (a new `SECRETS_KEY` beside an existing `.data/`).
 *
 * Each failure is a `StartCheckError` whose message is that one line:
 * `config error: NAME: what is wrong: what to set`.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import type { Knex } from '@dms/db';
import { commonSpec, embeddedPostgresSpec, loadConfig, resolveSecretsKey, startSpec } from '@dms/config';
import { SecretBox, SecretDecryptionError } from '@dms/secrets';
import { REPO_ROOT, type ServiceName } from './processes.js';

/** A setting `npm start` cannot run with; `message` is the one line to print. */
export class StartCheckError extends Error {}

/** The spec `npm start` validates its environment with: the services' shared settings and its own. */
const spec = { ...commonSpec, ...startSpec, ...embeddedPostgresSpec };

/** `npm start`'s validated settings. */
export type StartSettings = ReturnType<typeof loadConfig<typeof spec>>;

/** `env` as `npm start` reads it: an empty `DATABASE_URL` means unset (the embedded database). */
function effectiveEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  if (!out.DATABASE_URL) delete out.DATABASE_URL;
  return out;
}

/** The one line of a failed loader (`ConfigError` of @dms/config, or the `config error:` Error of a service's own rule). */
function configLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (!message.startsWith('config error:')) throw err;
  return message.split('\n')[0]!;
}

/**
 * Validates `env` as `npm start` and every service it starts will read it.
 * @param ports the port `npm start` gives each service (its `PORT`)
 * @returns the settings of `npm start` itself
 * @throws StartCheckError `config error: NAME: reason` for the first setting refused
 */
export async function checkSettings(env: NodeJS.ProcessEnv, ports?: Record<ServiceName, number>): Promise<StartSettings> {
  const own = effectiveEnv(env);
  let cfg: StartSettings;
  try {
    cfg = loadConfig(spec, own, false);
  } catch (err) {
    throw new StartCheckError(configLine(err));
  }
  const services: Record<ServiceName, number> = ports ?? {
    auth: cfg.AUTH_PORT,
    api: cfg.API_PORT,
    dispatcher: cfg.DISPATCHER_PORT,
    worker: cfg.WORKER_PORT,
    portal: cfg.PORTAL_PORT,
  };
  for (const [name, port] of Object.entries(services) as Array<[ServiceName, number]>) {
    const mod = (await import(pathToFileURL(join(REPO_ROOT, 'services', name, 'dist', 'config.js')).href)) as Record<string, unknown>;
    const load = mod[`load${name[0]!.toUpperCase()}${name.slice(1)}Config`] as (e: NodeJS.ProcessEnv, exitOnError: boolean) => unknown;
    try {
      load({ ...own, NODE_ENV: cfg.NODE_ENV, PORT: String(port) }, false);
    } catch (err) {
      throw new StartCheckError(configLine(err));
    }
  }
  return cfg;
}

/** `host:port/database` of a connection string, without its credentials. */
export function databaseWhere(url: string): string {
  const u = new URL(url);
  return `${u.host}${u.pathname}`;
}

/** The reason of a failed connection: Node's AggregateError (every address refused) has no message of its own. */
function connectReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { errors?: Array<{ message?: string }> };
  const inner = e.errors?.map((x) => x.message).filter(Boolean);
  return e.message || inner?.join(', ') || e.code || String(err);
}

/**
 * Connects to the database of `url` once (node-postgres, as the services do) and disconnects: a
 * failure becomes the one line naming `DATABASE_URL` (its host, port and database, never its
 * credentials), before any pool would log the failure with its stack.
 * @param embedded true for the embedded server `npm start` started (then the fix is not DATABASE_URL)
 * @throws StartCheckError when the server does not answer, refuses the login or lacks the database
 */
export async function reachDatabase(url: string, embedded: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A connection that fails later (the server going away) must not be an unhandled 'error' event.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    const fix = embedded
      ? 'the embedded server stopped answering; run npm start again'
      : 'start that PostgreSQL server, or set DATABASE_URL to one that runs (unset it to use the embedded database)';
    throw new StartCheckError(`config error: DATABASE_URL: cannot use the database at ${databaseWhere(url)} (${connectReason(err)}): ${fix}`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Columns holding secrets sealed with the secrets key, of which the newest row is tried. */
const SEALED: ReadonlyArray<[table: string, column: string]> = [
  ['signing_keys', 'private_jwk_ciphertext'],
  ['oauth_clients', 'secret_ciphertext'],
];

/**
 * Checks that the secrets key the services will use (`SECRETS_KEY`, else outside production the
 * key generated into `<DATA_DIR>/secrets.key`) opens the newest secret of each sealed table
 * (tables not made yet hold none).
 * @throws StartCheckError naming SECRETS_KEY, the key id the secrets were sealed with, and the fix
 */
export async function checkSecretsKey(db: Knex, cfg: Pick<StartSettings, 'SECRETS_KEY' | 'DATA_DIR' | 'NODE_ENV'>): Promise<void> {
  const box = new SecretBox(resolveSecretsKey(cfg));
  for (const [table, column] of SEALED) {
    // Checked before the migrations: a database without the table holds no secrets yet.
    if (!(await db.schema.hasTable(table))) continue;
    const row = await db<Record<string, string>>(table).orderBy('created_at', 'desc').first(column);
    if (!row) continue;
    try {
      box.open(row[column]!);
    } catch (err) {
      if (!(err instanceof SecretDecryptionError)) throw err;
      const keyId = row[column]!.split('.')[1];
      const generated = join(cfg.DATA_DIR, 'secrets.key');
      throw new StartCheckError(
        `config error: SECRETS_KEY: does not open the secrets already stored in the database (sealed with the key whose id is ${keyId}): ` +
          `set SECRETS_KEY to that key (with SECRETS_KEY unset, outside production, it is the one in ${generated}), ` +
          'or list it after the new one (SECRETS_KEY=new,old) to rotate',
      );
    }
  }
}
