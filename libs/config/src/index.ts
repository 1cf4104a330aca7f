/**
 * Configuration from environment variables (docs/api.md section 1), validated at start-up with
 * envalid. A missing or malformed setting stops the process with one line naming it, never a
 * half-configured service.
 *
 * Every setting has a working local default, so each service also starts on a developer machine
 * with no environment at all. In production (`NODE_ENV=production`) the secrets key has no default.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import envalid, { type CleanedEnv, type ValidatorSpec } from 'envalid';
import { atLeastOne, port, postgresUrl } from './validators.js';

const { bool, cleanEnv, makeValidator, num, str, url } = envalid;
export { bool, num, port, str, url };
export { atLeastOne, postgresUrl } from './validators.js';
export { startSpec } from './start.js';

/** The repository root (three levels above this compiled module: libs/config/dist). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Settings of the local commands, not of the services (README, "Configuration"): the ports of the
 * embedded PostgreSQL servers started when `DATABASE_URL` is unset, by `npm start`, `npm run
 * migrate`, `npm run seed` and the admin CLI (`EMBEDDED_PG_PORT`, shared by them), and by
 * `npm test` (`EMBEDDED_PG_TEST_PORT`, a server of its own beside a running `npm start`).
 */
export const embeddedPostgresSpec = {
  EMBEDDED_PG_PORT: port({
    default: 54320,
    desc: "Port of the embedded PostgreSQL these commands start, or reuse when it already runs, while DATABASE_URL is unset; a free port, not a system server's 5432",
  }),
  EMBEDDED_PG_TEST_PORT: port({
    default: 54329,
    desc: 'Port of the embedded PostgreSQL of the test suite while DATABASE_URL is unset: a server of its own, so the tests run beside npm start',
  }),
};

/**
 * Connection string of the embedded local database on its default port (user/password of the
 * local cluster only): the `DATABASE_URL` of a service started alone, which reads no
 * `EMBEDDED_PG_PORT`.
 */
export const EMBEDDED_DATABASE_URL = `postgres://postgres:postgres@127.0.0.1:${embeddedPostgresSpec.EMBEDDED_PG_PORT.default}/dms`;

/** Raised by `loadConfig` in place of exiting when `exitOnError` is false (tests, the CLI). */
export class ConfigError extends Error {}

/**
 * Validates `env` against `spec` and returns the typed settings.
 * On failure prints `config error: NAME: reason` (one line per setting) to stderr and exits 1,
 * or throws `ConfigError` when `exitOnError` is false.
 */
export function loadConfig<S extends Record<string, ValidatorSpec<unknown>>>(spec: S, env: NodeJS.ProcessEnv = process.env, exitOnError = true): CleanedEnv<S> {
  return cleanEnv(env, spec, {
    reporter: ({ errors, env: cleaned }) => {
      const failures: Record<string, string> = {};
      for (const [n, error] of Object.entries(errors as Record<string, Error>)) failures[n] = reason(n, error, env[n]);
      // Checked here rather than where the key is first used, so a production process without
      // its key stops before loading anything else.
      const values = cleaned as Record<string, unknown>;
      if ('SECRETS_KEY' in spec && !failures.SECRETS_KEY && values.NODE_ENV === 'production' && !values.SECRETS_KEY) {
        failures.SECRETS_KEY = 'required in production';
      }
      const names = Object.keys(failures);
      if (names.length === 0) return;
      const line = names.map((n) => `${n}: ${failures[n]}`).join('; ');
      if (!exitOnError) throw new ConfigError(`config error: ${line}`);
      process.stderr.write(`config error: ${line}\n`);
      process.exit(1);
    },
  });
}

/** Settings whose values may carry credentials: their values never appear in a config error. */
export const SENSITIVE_SETTING = /^(SECRETS_KEY|DATABASE_URL|DATABASE_LISTEN_URL|REDIS_URL|SMTP_URL|STRIPE_SECRET_KEY)$|_(PASSWORD|SECRET|TOKEN)$/;

/** The reason of one failed setting, without echoing a credential-bearing value (envalid quotes the input). */
function reason(name: string, error: Error, value: string | undefined): string {
  const message = withFix(error.message || 'invalid');
  if (!value || !SENSITIVE_SETTING.test(name)) return message;
  return message.split(value).join('[value hidden]');
}

/** envalid's own messages, reworded to say what to set (the validators of ./validators.ts say it themselves). */
function withFix(message: string): string {
  const choices = /^Value "(.*)" not in choices \[(.*)\]$/s.exec(message);
  if (choices) return `"${choices[1]}" is not allowed: set one of ${choices[2]!.split(',').join(', ')}`;
  const other = /^Invalid (number|bool|url) input: "(.*)"$|^Invalid (url): "(.*)"$/s.exec(message);
  if (!other) return message;
  const what = { number: 'a number such as 30', bool: 'true or false', url: 'an absolute URL such as http://localhost:4000' }[
    (other[1] ?? other[3]) as 'number'
  ];
  return `"${other[2] ?? other[4]}" is not allowed: set ${what}`;
}

/**
 * `SECRETS_KEY`: empty (outside production a local key is generated, see `resolveSecretsKey`) or
 * one or more base64-encoded 32-byte AES-256 keys separated by commas, the first one encrypting.
 * Checked here so a malformed key stops the process at start with one line, not at first use.
 */
export const secretsKeys = makeValidator<string>((input) => {
  if (input.trim() === '') return '';
  const keys = input.split(',').map((k) => k.trim());
  if (keys.some((k) => !/^[A-Za-z0-9+/]+={0,2}$/.test(k) || Buffer.from(k, 'base64').length !== 32)) {
    throw new Error('must be base64-encoded 32-byte keys separated by commas (generate one with `openssl rand -base64 32`)');
  }
  return keys.join(',');
});

/** Settings every service shares (database, issuer, audience, secrets). */
export const commonSpec = {
  NODE_ENV: str({ default: 'development', choices: ['development', 'test', 'production'], desc: 'Run mode; `production` requires SECRETS_KEY' }),
  LOG_LEVEL: str({
    default: 'info',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    desc: 'Minimum level of the JSON log lines (pino)',
  }),
  DATA_DIR: str({ default: join(REPO_ROOT, '.data'), desc: 'Local state: embedded database, generated secrets key' }),
  DATABASE_URL: postgresUrl({ default: EMBEDDED_DATABASE_URL, desc: 'PostgreSQL connection string' }),
  DATABASE_POOL_MAX: atLeastOne({ default: 10, desc: 'Connections per process' }),
  AUTH_ISSUER: url({ default: 'http://localhost:4000', desc: 'Issuer identifier (iss) of access tokens' }),
  API_AUDIENCE: str({ default: 'http://localhost:3000', desc: 'Audience (aud) identifying the resource API' }),
  SECRETS_KEY: secretsKeys({
    default: '',
    desc: 'Base64 32-byte key(s), comma separated, encrypting stored secrets; the first encrypts, all decrypt, and the worker re-seals values under the others at start (required in production)',
  }),
  SHUTDOWN_GRACE_SECONDS: num({ default: 10, desc: 'Seconds SIGTERM waits for in-flight work' }),
  // Read by the OpenTelemetry SDK itself (@dms/telemetry); listed here to be validated and documented.
  OTEL_EXPORTER_OTLP_ENDPOINT: str({
    default: '',
    desc: 'OTLP/HTTP endpoint of a trace collector (`/v1/traces` is appended; the other standard OTEL_* variables apply); empty = no traces, nothing loaded',
  }),
  ...poolTimeoutSpec(),
  ...databaseRouteSpec(),
};

/**
 * Time limits of every database pool (read by `createDb` of @dms/db, so each service gets them
 * without passing them along). Milliseconds; 0 turns a limit off.
 */
export function poolTimeoutSpec() {
  return {
    DATABASE_STATEMENT_TIMEOUT_MS: num({
      default: 30_000,
      desc: 'PostgreSQL statement_timeout of every pooled connection, ms (0 = none); a request hitting it is answered 503',
    }),
    DATABASE_LOCK_TIMEOUT_MS: num({
      default: 5_000,
      desc: 'PostgreSQL lock_timeout of every pooled connection, ms (0 = none): the longest wait for a locked table or row',
    }),
    DATABASE_ACQUIRE_TIMEOUT_MS: num({ default: 3_000, desc: 'Longest wait for a free pooled connection, ms; a request that waits longer is answered 503' }),
  };
}

/**
 * What DATABASE_URL leads to, read by `createDb` of @dms/db (so each service gets it without
 * passing it along; deploy/README.md, "High availability"). PgBouncer before 1.21 in transaction
 * mode keeps no session state between transactions: no named prepared statements, no start-up
 * settings, no LISTEN.
 */
export function databaseRouteSpec() {
  return {
    DATABASE_POOLER: str({
      default: 'none',
      choices: ['none', 'transaction'],
      desc: 'What DATABASE_URL leads to: `none` (PostgreSQL itself, or a session pooler) or `transaction` (a transaction-mode pooler such as PgBouncer: statements unnamed, no session settings at connect; the database role carries TimeZone UTC and the time limits)',
    }),
  };
}

/**
 * `DATABASE_LISTEN_URL` of the services that LISTEN (issuer, dispatcher), read by
 * `listenWithReconnect` of @dms/db: LISTEN needs a session, which a transaction-mode pooler does
 * not keep.
 */
export const listenUrlSpec = () =>
  str({
    default: '',
    desc: 'PostgreSQL connection string of the LISTEN connection, which needs a session: the primary directly or a session-mode pool (empty = DATABASE_URL)',
  });

/**
 * `TRUST_PROXY`: which peers' `X-Forwarded-For` is believed when finding a request's source
 * address for per-address rate limits (the `trust proxy` setting of Express / proxy-addr: preset
 * names `loopback`, `linklocal`, `uniquelocal`, addresses or CIDR ranges, comma separated).
 * The default believes loopback only: any other peer (a pod or VM of the same network) would
 * otherwise choose its own address, and with it a fresh failed-authentication budget or a way
 * round a lockout (docs/api.md section 11).
 * A shared definition, so the API and the issuer read it the same way.
 */
export const trustProxySpec = () =>
  str({
    default: 'loopback',
    desc: 'Peers whose X-Forwarded-For is believed for per-address rate limits and lockouts (proxy-addr presets loopback, linklocal, uniquelocal, addresses or CIDRs, comma separated; empty = none); list your ingress or load balancers, never a whole private range',
  });

/**
 * `PORTAL_BASE_URL`: the public address of the customer portal (docs/api.md section 18). The
 * portal serves `<PORTAL_BASE_URL>/l/<token>` and, over https, makes its session cookie Secure
 * with a `__Host-` name; the worker and the API put that address in the links they make.
 * A shared definition, so every service builds the same links.
 */
export const portalBaseUrlSpec = () =>
  url({
    default: 'http://localhost:3005',
    desc: 'Public address of the customer portal; links are `<PORTAL_BASE_URL>/l/<token>`; https makes the portal session cookie Secure with a `__Host-` name',
  });

/** The origins of a `CORS_ALLOWED_ORIGINS` value: comma separated, blanks ignored. */
export function parseOrigins(value: string): string[] {
  return value
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
}

/** Validates `CORS_ALLOWED_ORIGINS`: each entry an exact origin, `scheme://host[:port]`, no path, no `*`. */
const origins = makeValidator<string>((input) => {
  for (const origin of parseOrigins(input)) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin) throw new Error(`"${origin}" is not an origin (scheme://host[:port], nothing after it)`);
  }
  return input;
});

/**
 * `CORS_ALLOWED_ORIGINS` of the API and the issuer (docs/api.md section 11, "Browsers"): the
 * browser origins allowed to call them. None by default: both serve machines, and a browser page
 * holding a client secret or a tenant's token is the mistake this default prevents.
 */
export const corsOriginsSpec = () =>
  origins({
    default: '',
    desc: 'Browser origins allowed to call this service (exact scheme://host[:port], comma separated); empty = none, no CORS header is ever sent',
  });

/**
 * `WEB_CONCURRENCY`: worker processes of an HTTP service sharing its port (node:cluster, see
 * `runWorkers` of @dms/lifecycle). 1 in containers, where Kubernetes scales pods; one per core on
 * a host that runs the service directly. A shared definition for the API and the issuer.
 */
export const webConcurrencySpec = () =>
  num({
    default: 1,
    desc: 'Worker processes sharing the HTTP port (node:cluster); each has its own pool of DATABASE_POOL_MAX connections. 1 in containers, one per core on a host',
  });

/**
 * Returns the secrets key: `SECRETS_KEY` when set; outside production, a key generated once into
 * `<DATA_DIR>/secrets.key` so every local service and the CLI share it.
 * @throws ConfigError in production when `SECRETS_KEY` is unset
 */
export function resolveSecretsKey(cfg: { SECRETS_KEY: string; DATA_DIR: string; NODE_ENV: string }): string {
  if (cfg.SECRETS_KEY) return cfg.SECRETS_KEY;
  if (cfg.NODE_ENV === 'production') {
    process.stderr.write('config error: SECRETS_KEY: required in production\n');
    process.exit(1);
  }
  const file = join(cfg.DATA_DIR, 'secrets.key');
  if (!existsSync(file)) {
    mkdirSync(cfg.DATA_DIR, { recursive: true });
    // wx: two processes starting at once must not each write a different key.
    try {
      writeFileSync(file, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return readFileSync(file, 'utf8').trim();
}
