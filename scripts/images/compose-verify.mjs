/**
 * Third part of `npm run images:verify`: docker-compose.yml run by podman-compose with the images
 * just built, and the same tenant path (tenant-path.mjs) through it.
 *
 *   node scripts/images/compose-verify.mjs [--standin]
 *
 * --standin adds deploy/compose.standin.yml (local PostgreSQL and Redis images instead of the
 * official ones, for machines without an image registry). Reads SECRETS_KEY from the environment;
 * makes up a PostgreSQL password. The project (containers, network, volume) is removed at the end.
 *
 * podman-compose 1.0.3 (Debian 12) starts services in depends_on order but ignores its
 * conditions (service_healthy, service_completed_successfully), so the order Compose enforces is
 * driven here: PostgreSQL and Redis healthy, the migration exited 0, then auth, api, dispatcher, worker, portal.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import YAML from 'yaml';
import { freePort } from '@dms/tools/processes';
import { healthcheck, logs, podman, podmanOk, waitExit } from './podman.mjs';
import { tenantPath } from './tenant-path.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const standin = process.argv.includes('--standin');
const out = (line) => process.stdout.write(`images:verify: compose: ${line}\n`);
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

const project = `dmsverify${randomBytes(3).toString('hex')}`;
const ports = { auth: await freePort(), api: await freePort(), dispatcher: await freePort(), worker: await freePort(), portal: await freePort() };
/** @type {Record<string, string | undefined>} */
const env = {
  POSTGRES_PASSWORD: randomBytes(18).toString('hex'),
  SECRETS_KEY: process.env.SECRETS_KEY,
  DMS_AUTH_PORT: String(ports.auth),
  DMS_API_PORT: String(ports.api),
  DMS_DISPATCHER_PORT: String(ports.dispatcher),
  DMS_WORKER_PORT: String(ports.worker),
  DMS_PORTAL_PORT: String(ports.portal),
};
const files = ['-f', 'docker-compose.yml', ...(standin ? ['-f', 'deploy/compose.standin.yml'] : [])];
// podman-compose 1.0.3 leaves `${NAME:-}` (an empty default) as it is, where Compose substitutes
// the variable or an empty string: an override file of the run gives those settings the value
// Compose would (the variable from this environment, else empty).
const emptyDefault = /\$\{([A-Za-z_][A-Za-z0-9_]*):-\}/g;
/** @type {Record<string, Record<string, string>>} */
const substituted = {};
for (const [service, spec] of Object.entries(YAML.parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }).services)) {
  for (const [key, value] of Object.entries(/** @type {{ environment?: Record<string, unknown> }} */ (spec).environment ?? {})) {
    if (typeof value !== 'string' || !value.match(emptyDefault)) continue;
    // `$$` is Compose's escaped `$`, in case a variable's value holds one.
    (substituted[service] ??= {})[key] = value.replace(emptyDefault, (_, name) => process.env[name] ?? '').replaceAll('$', '$$$$');
  }
}
const overrideDir = mkdtempSync(join(tmpdir(), 'dms-compose-'));
writeFileSync(
  join(overrideDir, 'empty-defaults.yml'),
  YAML.stringify({ services: Object.fromEntries(Object.entries(substituted).map(([name, environment]) => [name, { environment }])) }),
);
files.push('-f', join(overrideDir, 'empty-defaults.yml'));

/**
 * Runs `podman-compose -p <project> -f … <args>` in the repository root. Its own output echoes the
 * podman command lines, environment values included, so it is never printed: failures name the
 * command and its exit code only.
 * @param {string[]} args
 * @returns {Promise<void>}
 */
function compose(args) {
  return new Promise((resolve, reject) => {
    execFile(
      'podman-compose',
      ['-p', project, ...files, ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 16 << 20, timeout: 300_000 },
      (err) => {
        if (err) reject(new Error(`podman-compose ${args.join(' ')} failed (exit ${err.code})`));
        else resolve();
      },
    );
  });
}

const container = (service) => `${project}_${service}_1`;

/** Polls the container's HEALTHCHECK until healthy. */
async function healthy(service, ms) {
  const deadline = Date.now() + ms;
  while ((await healthcheck(container(service))) !== 0) {
    if (Date.now() > deadline) throw new Error(`${service} not healthy after ${ms} ms`);
    await pause(1000);
  }
}

async function main() {
  const composeFile = YAML.parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
  const audience = composeFile.services.api.environment.API_AUDIENCE;
  out(
    `project ${project}: ${files.filter((f) => f !== '-f').join(' + ')}; host ports auth ${ports.auth}, api ${ports.api}, dispatcher ${ports.dispatcher}, worker ${ports.worker}, portal ${ports.portal}`,
  );

  await compose(['up', '-d', '--no-build', '--no-deps', 'postgres', 'redis']);
  await healthy('postgres', 90_000);
  await healthy('redis', 30_000);
  out('  ✓ postgres and redis healthy (their compose healthchecks: pg_isready, redis-cli ping)');

  /** @type {import('./tenant-path.mjs').Platform} */
  const platform = {
    services: ['auth', 'api', 'dispatcher', 'worker', 'portal'],
    migrate: async () => {
      await compose(['up', '-d', '--no-build', '--no-deps', '--force-recreate', 'migrate']);
      const code = await waitExit(container('migrate'), 120_000);
      const text = await logs(container('migrate'));
      return { code, stdout: text, stderr: '' };
    },
    start: (service) => compose(['up', '-d', '--no-build', '--no-deps', service]),
    admin: (cli) => podman(['exec', '-e', 'LOG_LEVEL=silent', container('auth'), 'node', 'dist/cli/admin.js', ...cli]),
    container,
    url: (service) => `http://127.0.0.1:${ports[service]}`,
    audience,
    // The dispatcher reaches this host as host.containers.internal; the receiver listens on that address only.
    receiver: async () => {
      const line = await podmanOk(['exec', container('dispatcher'), 'getent', 'hosts', 'host.containers.internal']);
      return { bind: line.trim().split(/\s+/)[0], host: 'host.containers.internal' };
    },
    // `podman stop` is what `podman-compose stop` runs: the image's STOPSIGNAL (SIGTERM), then the
    // stop_grace_period before SIGKILL.
    terminate: (name) => podman(['stop', '-t', '30', name], { timeoutMs: 60_000 }),
  };
  await tenantPath(platform, (s) => out(`  ✓ ${s}`));
}

process.once('SIGINT', () => compose(['down', '-v', '-t', '5']).finally(() => process.exit(130)));
try {
  await main();
  out('passed');
} catch (err) {
  process.stderr.write(`images:verify: compose: FAILED: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
  // What each service said before the project is removed (their own log lines; the values of the
  // run's settings are made up for it).
  for (const service of ['migrate', 'auth', 'api', 'dispatcher', 'worker']) {
    const state = await podman(['inspect', '--format', '{{.State.Status}} exit {{.State.ExitCode}}', container(service)]);
    const lines = (await logs(container(service))).trimEnd().split('\n').slice(-15).join('\n    ');
    process.stderr.write(`images:verify: compose: ${service}: ${state.stdout.trim() || 'no container'}\n    ${lines}\n`);
  }
} finally {
  await compose(['down', '-v', '-t', '5']).catch((e) => process.stderr.write(`images:verify: compose: ${e.message}\n`));
  // podman-compose 1.0.3 leaves the project's network behind.
  await podman(['network', 'rm', '-f', `${project}_default`]);
  rmSync(overrideDir, { recursive: true, force: true });
}
