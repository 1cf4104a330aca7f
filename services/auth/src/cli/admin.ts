/**
 * The operators' admin CLI (docs/api.md section 2): `npm run -s admin -- <resource> <command> [flags]`.
 * Each command prints exactly one JSON object on stdout; diagnostics go to stderr with exit code 1
 * (bad input or unknown object) or 2 (usage).
 *
 *   tenants create --name NAME
 *   clients create --tenant TEN_ID --name NAME [--scope "debts:read …"] [--test]  (--test: section 15)
 *   clients create --operator --name NAME [--scope "operations:read …"]  (docs/api.md section 12)
 *   clients rotate-secret --client CLIENT_ID
 *   clients revoke --client CLIENT_ID
 *   keys rotate
 *
 * With `DATABASE_URL` unset it uses the embedded database of the root `npm start`, starting it
 * for the duration of the command when it is not running.
 */
import { parseArgs } from 'node:util';
import { createDb, poolTimeoutsFromEnv, migrateLatest, resolveDatabase, type Knex } from '@dms/db';
import { resolveSecretsKey } from '@dms/config';
import { SecretBox } from '@dms/secrets';
import { loadAuthConfig } from '../config.js';
import { createTenant } from '@dms/domain/tenants';
import { ClientAdminError, createClient, revokeClient, rotateClientSecret, rotateSigningKey } from '../domain/index.js';

const USAGE = `usage: admin tenants create --name NAME
       admin clients create --tenant TEN_ID --name NAME [--scope "SCOPE ..."] [--test]
       admin clients create --operator --name NAME [--scope "operations:read operations:write"]
       admin clients rotate-secret --client CLIENT_ID
       admin clients revoke --client CLIENT_ID
       admin keys rotate`;

class UsageError extends Error {}

function required(values: Flags, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || !v) throw new UsageError(`--${name} is required`);
  return v;
}

/** The parsed flags: strings, `--operator` and `--test`. */
type Flags = Record<string, string | boolean | undefined>;
type Command = (db: Knex, flags: Flags) => Promise<object>;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      name: { type: 'string' },
      tenant: { type: 'string' },
      scope: { type: 'string' },
      client: { type: 'string' },
      operator: { type: 'boolean' },
      test: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  const cfg = loadAuthConfig();
  const box = new SecretBox(resolveSecretsKey(cfg));
  const issuer = { issuer: cfg.AUTH_ISSUER, audience: cfg.API_AUDIENCE };

  const commands: Record<string, Command> = {
    'tenants create': (db, f) => createTenant(db, required(f, 'name')),
    'clients create': (db, f) =>
      createClient(db, box, issuer, {
        ...(f.operator ? { operator: true } : { tenantId: required(f, 'tenant') }),
        ...(f.test ? { test: true } : {}),
        name: required(f, 'name'),
        scope: f.scope as string | undefined,
      }),
    'clients rotate-secret': (db, f) => rotateClientSecret(db, box, issuer, required(f, 'client')),
    'clients revoke': (db, f) => revokeClient(db, required(f, 'client')),
    'keys rotate': (db) => rotateSigningKey(db, box, cfg.SIGNING_ALG),
  };
  const command = commands[positionals.slice(0, 2).join(' ')];
  if (!command) throw new UsageError(`unknown command "${positionals.join(' ')}"`);

  const pgServer = await resolveDatabase();
  // A one-shot operator command, not a request path: it may wait for its first connection (a
  // container's first name lookup, a database still starting) longer than a service's pool would.
  const db = createDb(pgServer.url, 2, { ...poolTimeoutsFromEnv(), acquireTimeoutMs: 30_000 });
  try {
    await migrateLatest(db);
    const result = await command(db, values);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await db.destroy();
    await pgServer.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`error: ${err instanceof ClientAdminError || err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
