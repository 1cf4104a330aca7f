/**
 * `npm start` (tools/dist/start.js) with a setting it cannot run with stops before anything starts,
 * with exit code 1 and exactly one line, `config error: NAME: what is wrong: what to set`, the
 * way a service started alone refuses it (test/process/config-errors.test.ts), never a stack
 * trace; and the `LOG_LEVEL` it is given reaches the services it starts.
 *
 * Every port `npm start` reads is a free one and `DATA_DIR` a temporary directory, so a developer's
 * `npm start` or another test run on the machine changes nothing.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createClient } from '@dms/auth/domain';
import { createTenant } from '@dms/domain/tenants';
import { SecretBox } from '@dms/secrets';
import { REPO_ROOT, freePort } from '@dms/tools/processes';
import { SERVICE_ENV } from '../support/harness.js';
import { createOwnDatabase, type OwnDatabase } from '../support/own-database.js';
import { eventually } from '../support/eventually.js';

const dataDir = mkdtempSync(join(tmpdir(), 'dms-start-settings-'));
let own: OwnDatabase;

beforeAll(async () => {
  own = await createOwnDatabase('start');
});
afterAll(async () => {
  await own?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every port `npm start` reads set to a free one, its database `own`, its local state in `dataDir`. */
async function isolated(): Promise<Record<string, string>> {
  const env: Record<string, string> = { DATABASE_URL: own.url, DATA_DIR: dataDir, NODE_ENV: 'development' };
  for (const name of [
    'AUTH_PORT',
    'API_PORT',
    'DISPATCHER_PORT',
    'WORKER_PORT',
    'EMBEDDED_PG_PORT',
    'LOCAL_SMTP_PORT',
    'LOCAL_MAIL_WEB_PORT',
    'LOCAL_SMS_PORT',
  ]) {
    env[name] = String(await freePort());
  }
  return env;
}

/**
 * Runs start.js with the suite's settings, `isolated()` and `env`, in a process group of its own,
 * until it exits, or until `stopWhen` holds for its output (then SIGTERM, as Ctrl-C would), or
 * for at most 120 s (then the whole group is killed, so a start that wrongly runs leaves nothing).
 */
async function runStart(env: Record<string, string>, stopWhen?: (output: string) => boolean) {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'tools/dist/start.js')], {
    env: { ...process.env, ...SERVICE_ENV, ...(await isolated()), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // 'close', not 'exit': the services share the pipes, and their last lines may come later.
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // ESRCH: the group is gone.
    }
  };
  const timer = setTimeout(() => killGroup('SIGKILL'), 120_000);
  if (stopWhen) {
    await eventually(() => stopWhen(stdout + stderr) || child.exitCode !== null, 'npm start ready or exited', 120_000).catch(() => {});
    if (child.exitCode === null) child.kill('SIGTERM');
  }
  const code = await closed;
  clearTimeout(timer);
  killGroup('SIGKILL');
  return { code, stdout, stderr };
}

/** Runs start.js with `env`; expects exit 1 and one stderr line matching `line`, nothing on stdout. */
async function expectRefused(env: Record<string, string>, line: RegExp): Promise<string> {
  const run = await runStart(env);
  expect({ code: run.code, lines: run.stderr.split('\n').filter(Boolean), stdout: run.stdout }).toEqual({
    code: 1,
    lines: [expect.stringMatching(line)],
    stdout: '',
  });
  return run.stderr;
}

describe('npm start refuses a bad setting with one line naming it and the fix', () => {
  test.each([
    ['API_PORT', 'abc'],
    ['API_PORT', '99999'],
    ['WORKER_PORT', '0'],
    ['LOCAL_SMS_PORT', '3.5'],
  ])('%s=%s', async (name, value) => {
    await expectRefused(
      { [name]: value },
      new RegExp(`^config error: ${name}: "${value.replace('.', '\\.')}" is not a port: set a whole number from 1 to 65535`),
    );
  });

  test('DATABASE_POOL_MAX=0', async () => {
    await expectRefused({ DATABASE_POOL_MAX: '0' }, /^config error: DATABASE_POOL_MAX: "0" is not allowed: set a whole number of at least 1$/);
  });

  test('LOG_LEVEL=loud', async () => {
    await expectRefused({ LOG_LEVEL: 'loud' }, /^config error: LOG_LEVEL: "loud" is not allowed: set one of fatal, error, warn, info, debug, trace, silent$/);
  });

  test('a malformed DATABASE_URL, its value (a password) never echoed', async () => {
    const stderr = await expectRefused(
      { DATABASE_URL: 'postgres://app:s3cret pass@db host/dms' },
      /^config error: DATABASE_URL: is not a PostgreSQL connection string: set it to postgres:\/\/user:password@host:5432\/database/,
    );
    expect(stderr).not.toContain('s3cret');
  });

  test('a DATABASE_URL of another kind (http://)', async () => {
    await expectRefused({ DATABASE_URL: 'http://localhost:5432/dms' }, /^config error: DATABASE_URL: is not a PostgreSQL connection string/);
  });

  test('an unreachable DATABASE_URL names its host and database, never its password', async () => {
    const port = await freePort();
    const stderr = await expectRefused(
      { DATABASE_URL: `postgres://app:s3cret@127.0.0.1:${port}/dms` },
      new RegExp(
        `^config error: DATABASE_URL: cannot use the database at 127\\.0\\.0\\.1:${port}/dms \\(.*ECONNREFUSED.*\\): start that PostgreSQL server, or set DATABASE_URL`,
      ),
    );
    expect(stderr).not.toContain('s3cret');
  });

  test("a setting of one service (the worker's WORKER_POLL_SECONDS), refused as that service would", async () => {
    await expectRefused({ WORKER_POLL_SECONDS: 'often' }, /^config error: WORKER_POLL_SECONDS: "often" is not allowed: set a number/);
  });

  test('a new SECRETS_KEY beside secrets sealed with another key: names the key id they need and how to rotate', async () => {
    // A client whose secret is sealed with the suite's key, as an earlier `npm start` would leave it.
    const old = new SecretBox(SERVICE_ENV.SECRETS_KEY!);
    const tenant = await createTenant(own.db, 'Sealed Ltd');
    await createClient(own.db, old, { issuer: SERVICE_ENV.AUTH_ISSUER!, audience: SERVICE_ENV.API_AUDIENCE! }, { tenantId: tenant.id, name: 'sealed' });
    const { secret_ciphertext } = await own.db('oauth_clients').where({ tenant_id: tenant.id }).first('secret_ciphertext');
    const keyId = String(secret_ciphertext).split('.')[1]!;
    await expectRefused(
      { SECRETS_KEY: randomBytes(32).toString('base64') },
      new RegExp(
        `^config error: SECRETS_KEY: does not open the secrets already stored in the database \\(sealed with the key whose id is ${keyId}\\): .*SECRETS_KEY=new,old`,
      ),
    );
    // Unset (outside production): the key generated into DATA_DIR, which is not that one either.
    await expectRefused(
      { SECRETS_KEY: '' },
      new RegExp(`^config error: SECRETS_KEY: .*it is the one in ${join(dataDir, 'secrets.key').replaceAll('.', '\\.')}`),
    );
  });
});

test("LOG_LEVEL reaches the services npm start runs (warn: none of their info lines, such as 'listening')", async () => {
  const run = await runStart({ LOG_LEVEL: 'warn' }, (output) => output.includes('all services ready'));
  const output = run.stdout + run.stderr;
  expect(output).toContain('all services ready');
  // pino's info level is 30; `npm start`'s own lines start with [start].
  expect(output).not.toMatch(/"level":30/);
  expect(output).not.toMatch(/"msg":"listening"/);
}, 180_000);
