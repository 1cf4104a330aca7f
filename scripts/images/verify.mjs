/**
 * Second half of `npm run images:verify` (scripts/images-verify.sh builds the images first):
 *
 *   node scripts/images/verify.mjs --base "<base image (kind)>" TARGET…
 *
 * For each target image `localhost/dms-<target>:local`: the image checks (image-checks.mjs), then
 * the tenant's path through the running containers (tenant-path.mjs) on a database of its own,
 * created on DATABASE_URL's server (default the host's 127.0.0.1:5432 as postgres, else the
 * embedded server) and dropped afterwards. Reads SECRETS_KEY and CANARY (the test secrets planted
 * in the build context) from the environment. Prints one line per step and a size table; exit 1 on
 * the first failure, with every container removed.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { ensureDatabase, startLocalPostgres } from '@dms/db';
import { freePort } from '@dms/tools/processes';
import { checkImage, productionClosure } from './image-checks.mjs';
import { removeAll, runOnce, signal, startContainer } from './podman.mjs';
import { tenantPath } from './tenant-path.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const args = process.argv.slice(2);
const base = args[args.indexOf('--base') + 1];
const targets = args.filter((a, i) => a !== '--base' && args[i - 1] !== '--base');
const out = (line) => process.stdout.write(`images:verify: ${line}\n`);

/** The `-w` workspace of each target's `deps-<target>` stage in deploy/Dockerfile. */
function workspaces() {
  const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
  const map = {};
  for (const m of dockerfile.matchAll(/^FROM \S+ AS deps-(\S+)\n(?:.*\n)*?RUN npm ci .*?-w (\S+)/gm)) map[m[1]] = m[2];
  return map;
}

/** A fresh database for this run; returns its URL and how to drop it. */
async function database() {
  const name = `dms_images_${randomBytes(4).toString('hex')}`;
  const adminUrl = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  adminUrl.pathname = '/postgres';
  try {
    await ensureDatabase(adminUrl.href, name);
  } catch (err) {
    if (process.env.DATABASE_URL) throw err;
    const e = /** @type {Error & { code?: string }} */ (err);
    out(`no PostgreSQL at ${adminUrl.host} (${e.code ?? e.message}); starting the embedded server`);
    const local = await startLocalPostgres({ dataDir: join(ROOT, '.data', 'pg-images'), port: await freePort(), database: name });
    return { url: local.url, where: 'embedded PostgreSQL', drop: local.stop };
  }
  const url = new URL(adminUrl.href);
  url.pathname = `/${name}`;
  const drop = async () => {
    const client = new pg.Client({ connectionString: adminUrl.href });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.end();
  };
  return { url: url.href, where: `${adminUrl.host}, database ${name}`, drop };
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;

async function main() {
  const ws = workspaces();
  const { SECRETS_KEY, CANARY } = process.env;
  if (!SECRETS_KEY || !CANARY) throw new Error('SECRETS_KEY and CANARY must be set (run through npm run images:verify)');
  const secrets = [SECRETS_KEY, CANARY];
  out(`base image: ${base}; targets: ${targets.join(', ')}`);

  const reports = {};
  const failures = [];
  for (const target of targets) {
    if (!ws[target]) throw new Error(`deploy/Dockerfile has no deps-${target} stage with "npm ci … -w <workspace>"`);
    const closure = await productionClosure(ROOT, ws[target]);
    const { report, failures: f, notes } = await checkImage({ target, image: `localhost/dms-${target}:local`, closure, secrets });
    reports[target] = report;
    failures.push(...f);
    out(
      `image ${target}: ${mb(report.size)}, ${report.layers} layers, user ${report.user}, ${report.packages} packages, ${report.service ? 'HEALTHCHECK' : 'one-shot'}: ${f.length ? 'FAILED' : `only production dependencies of ${ws[target]}, no test secret in history or filesystem`}`,
    );
    for (const note of notes) out(`  note: ${note}`);
  }
  if (failures.length) throw new Error(`image checks failed:\n  ${failures.join('\n  ')}`);

  const db = await database();
  out(`PostgreSQL: ${db.where}`);
  const services = targets.filter((t) => reports[t].service);
  for (const needed of ['auth', 'api', 'dispatcher']) if (!services.includes(needed)) throw new Error(`no ${needed} service image`);
  const ports = {};
  for (const s of services) ports[s] = await freePort();
  const env = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    DATABASE_URL: db.url,
    SECRETS_KEY,
    AUTH_ISSUER: `http://127.0.0.1:${ports.auth}`,
    API_AUDIENCE: `http://127.0.0.1:${ports.api}`,
    PUBLIC_BASE_URL: `http://127.0.0.1:${ports.api}`,
    // The receiver of the check listens on this host's loopback address.
    ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
    SHUTDOWN_GRACE_SECONDS: '20',
  };
  const run = randomBytes(3).toString('hex');
  const image = (t) => `localhost/dms-${t}:local`;
  const container = (service) => `dms-verify-${service}-${run}`;
  /** @type {import('./tenant-path.mjs').Platform} */
  const platform = {
    services,
    migrate: () => runOnce(image('migrate'), { NODE_ENV: 'production', DATABASE_URL: env.DATABASE_URL }),
    start: (service) => startContainer(container(service), image(service), { ...env, PORT: String(ports[service]) }),
    admin: (cli) => runOnce(image('auth'), { ...env, LOG_LEVEL: 'silent' }, ['node', 'dist/cli/admin.js', ...cli]),
    container,
    url: (service) => `http://127.0.0.1:${ports[service]}`,
    audience: env.API_AUDIENCE,
    receiver: async () => ({ bind: '127.0.0.1', host: '127.0.0.1' }),
    terminate: (name) => signal(name, 'TERM'),
  };
  try {
    await tenantPath(platform, (s) => out(`  ✓ ${s}`));
  } finally {
    await removeAll();
    await db.drop();
  }

  out('');
  out('image            size  layers');
  for (const [t, r] of Object.entries(reports)) out(`${`dms-${t}`.padEnd(14)} ${mb(r.size).padStart(7)}  ${String(r.layers).padStart(6)}`);
  const over = Object.entries(reports)
    .filter(([, r]) => r.size > 250e6)
    .map(([t]) => t);
  if (over.length) out(`note: over 250 MB: ${over.join(', ')}`);
}

// Ctrl-C: remove the containers before leaving (the database is left; its name says what it was).
process.once('SIGINT', () => removeAll().finally(() => process.exit(130)));

main().then(
  () => process.exit(0),
  async (err) => {
    await removeAll();
    process.stderr.write(`images:verify: FAILED: ${err.message}\n`);
    process.exit(1);
  },
);
