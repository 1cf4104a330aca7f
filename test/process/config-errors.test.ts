/**
 * A bad or missing setting stops a service at start: exit code 1 and exactly one line on stderr
 * naming the setting, with a credential's value never echoed, and nothing on stdout.
 */
import { describe, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT, freePort } from '@dms/tools/processes';
import { SERVICE_ENV } from '../support/harness.js';

type Service = 'auth' | 'api' | 'dispatcher' | 'worker';

/** Runs the service's entry point with `env` over the test environment until it exits. */
async function startWith(service: Service, env: Record<string, string>) {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'services', service, 'dist', 'server.js')], {
    env: { ...process.env, ...SERVICE_ENV, NODE_ENV: 'test', PORT: String(await freePort()), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // A service that wrongly starts is stopped after 100 s (within the run's 120 s test timeout; the
  // concurrent starts below are slow beside a CPU hog) so the assertion below reports it.
  const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
  // 'close', not 'exit': under load the last stderr chunk can arrive after the exit event.
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

const BAD_KEY = 'c2hvcnQta2V5';
const everyService: Array<[string, Record<string, string>, RegExp]> = [
  ['a malformed port', { PORT: 'eighty' }, /^config error: PORT: /],
  ['a secrets key that is not 32 bytes of base64', { SECRETS_KEY: BAD_KEY }, /^config error: SECRETS_KEY: must be base64-encoded 32-byte keys/],
  ['no secrets key in production', { NODE_ENV: 'production', SECRETS_KEY: '' }, /^config error: SECRETS_KEY: required in production$/],
];
// Shared settings (libs/config commonSpec) behave alike everywhere: checked once, on the API.
const shared: Array<[string, Record<string, string>, RegExp]> = [
  ['an unknown log level', { LOG_LEVEL: 'loud' }, /^config error: LOG_LEVEL: /],
  ['a non-numeric pool size', { DATABASE_POOL_MAX: 'many' }, /^config error: DATABASE_POOL_MAX: /],
  ['a pool of no connections', { DATABASE_POOL_MAX: '0' }, /^config error: DATABASE_POOL_MAX: "0" is not allowed: set a whole number of at least 1$/],
  ['a malformed database URL', { DATABASE_URL: 'not a url' }, /^config error: DATABASE_URL: is not a PostgreSQL connection string: set it to postgres:\/\//],
  ['a database URL of another kind', { DATABASE_URL: 'http://db:5432/dms' }, /^config error: DATABASE_URL: is not a PostgreSQL connection string/],
];

async function expectOneLine(service: Service, env: Record<string, string>, line: RegExp): Promise<void> {
  const { code, stdout, stderr } = await startWith(service, env);
  expect(code).toBe(1);
  expect(stderr.split('\n').filter(Boolean)).toEqual([expect.stringMatching(line)]);
  expect(stderr).not.toContain(BAD_KEY);
  expect(stdout).toBe('');
}

describe.each(['auth', 'api', 'dispatcher', 'worker'] as const)('%s', (service) => {
  test.concurrent.each(everyService)('%s: exit 1 with one line naming the setting', (_name, env, line) => expectOneLine(service, env, line));
});

test.concurrent.each(shared)('api, %s: exit 1 with one line naming the setting', (_name, env, line) => expectOneLine('api', env, line));

// The worker's test-only settings (docs/api.md section 9) cannot reach production.
test.concurrent.each([
  [
    'a clock offset in production',
    { NODE_ENV: 'production', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'), WORKER_CLOCK_OFFSET_SECONDS: '86400' },
    /^config error: WORKER_CLOCK_OFFSET_SECONDS: must be 0 in production$/,
  ],
  [
    'a hold before commit outside tests',
    { NODE_ENV: 'development', WORKER_TEST_HOLD_MS: '1000' },
    /^config error: WORKER_TEST_HOLD_MS: only with NODE_ENV=test/,
  ],
] as Array<[string, Record<string, string>, RegExp]>)('worker, %s: exit 1 with one line naming the setting', (_name, env, line) =>
  expectOneLine('worker', env, line),
);

test('several bad settings are still one line, naming each', async () => {
  const { code, stderr } = await startWith('api', { PORT: 'x', RATE_LIMIT_PER_MINUTE: 'lots' });
  expect(code).toBe(1);
  const lines = stderr.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^config error: .*PORT: .*; .*RATE_LIMIT_PER_MINUTE: |^config error: .*RATE_LIMIT_PER_MINUTE: .*; .*PORT: /);
});
