/**
 * Settings of `npm run bench`, from environment variables with defaults that give the issue's
 * full-size run (1,000,000 debts per tenant). Smaller values make quick development runs, e.g.
 * `BENCH_DEBTS=20000 BENCH_DURATION=3 BENCH_WARMUP=1 npm run bench`.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { loadConfig, num, str } from '@dms/config';

/** Default server: the machine's PostgreSQL on 5432 (the benchmark needs pgbench beside it anyway). */
export const DEFAULT_BENCH_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The database the benchmark drops and recreates on every run: this name, or this name plus the
 * `BENCH_DATABASE_SUFFIX` (so runs from several checkouts can share one server), whatever
 * `DATABASE_URL` names, so pointing the benchmark at a server can never wipe a real database.
 */
export const BENCH_DATABASE = 'dms_bench';

const benchSpec = {
  DATABASE_URL: str({ default: DEFAULT_BENCH_SERVER_URL, desc: `PostgreSQL server (and credentials) on which database ${BENCH_DATABASE} is recreated` }),
  BENCH_DEBTS: num({ default: 1_000_000, desc: 'Debts per tenant (two tenants are loaded)' }),
  BENCH_DURATION: num({ default: 15, desc: 'Seconds each measured load run lasts' }),
  BENCH_WARMUP: num({ default: 5, desc: 'Seconds of discarded load before each measured run' }),
  BENCH_CONNECTIONS: num({ default: 10, desc: 'Concurrent HTTP connections, and pgbench clients' }),
  BENCH_WEBHOOK_EVENTS: num({ default: 20_000, desc: 'Events written for the webhook delivery scenario' }),
  BENCH_WEBHOOK_RATE: num({ default: 100, desc: 'Events per second streamed through the API for the first-attempt latency' }),
  BENCH_RETENTION_RATE: num({ default: 20, desc: 'Events per second written through the API for the retention scenario' }),
  BENCH_PAYOUT_PAYMENTS: num({ default: 1_000_000, desc: 'Succeeded payments of the one organisation the payout scenario pays out' }),
  BENCH_IMPORT_ROWS: num({ default: 1_000_000, desc: 'Rows of the placement file of the imports scenario' }),
  BENCH_IMPORT_WORKERS: num({ default: 2, desc: 'Workers applying the imports scenario file' }),
  BENCH_IMPORT_BATCH: num({ default: 0, desc: "The workers' IMPORT_BATCH_SIZE in the imports scenario; 0: the worker's default" }),
  BENCH_PORTAL_CUSTOMERS: num({ default: 1_000, desc: 'Customers (one debt each) of the portal scenario' }),
  BENCH_TOKEN_CLIENTS: num({ default: 200, desc: 'Distinct OAuth clients the token scenario rotates through' }),
  BENCH_DATABASE_SUFFIX: str({ default: '', desc: `Suffix of the recreated database's name (${BENCH_DATABASE}_<suffix>): letters, digits and _ only` }),
  BENCH_WEB_CONCURRENCY: num({
    default: 0,
    desc: 'Worker processes of the API and the issuer (WEB_CONCURRENCY), and of the bare ceiling server; 0: one per core',
  }),
  BENCH_CPU_PROF: str({ default: '', desc: 'Directory: when set, every service runs with --cpu-prof and writes its profile there on exit' }),
};

/** Validated benchmark settings. */
export interface BenchSettings {
  /** Connection string of an existing database of the server (for CREATE/DROP DATABASE). */
  adminUrl: string;
  /** Connection string of the benchmark database. */
  databaseUrl: string;
  /** Name of the benchmark database (dropped and recreated on every run). */
  databaseName: string;
  debtsPerTenant: number;
  durationSec: number;
  warmupSec: number;
  connections: number;
  webhookEvents: number;
  webhookRate: number;
  tokenClients: number;
  /** Customers of the portal scenario, each with one debt. */
  portalCustomers: number;
  /** Succeeded payments the payout scenario pays out in one run. */
  payoutPayments: number;
  /** Events per second of the retention scenario (its window is 0.0001 days per BENCH_DURATION second). */
  retentionRate: number;
  /** Rows of the imports scenario's placement file. */
  importRows: number;
  /** Workers applying it. */
  importWorkers: number;
  /** The workers' `IMPORT_BATCH_SIZE`, or 0 for their default. */
  importBatch: number;
  /** Worker processes each HTTP service (API, issuer, bare ceiling server) runs: WEB_CONCURRENCY. */
  webConcurrency: number;
  /** Directory for `--cpu-prof` profiles of the services, or '' for none. */
  cpuProfileDir: string;
}

/**
 * Reads the settings from `env`.
 * @throws ConfigError naming a malformed setting
 */
export function loadBenchSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  const c = loadConfig(benchSpec, env, false);
  const positive = (name: string, v: number) => {
    if (!(v > 0)) throw new Error(`${name} must be > 0`);
    return v;
  };
  const admin = new URL(c.DATABASE_URL);
  admin.pathname = '/postgres';
  if (!/^[a-z0-9_]*$/.test(c.BENCH_DATABASE_SUFFIX)) throw new Error('BENCH_DATABASE_SUFFIX may hold only a-z, 0-9 and _');
  const databaseName = c.BENCH_DATABASE_SUFFIX ? `${BENCH_DATABASE}_${c.BENCH_DATABASE_SUFFIX}` : BENCH_DATABASE;
  const bench = new URL(admin.href);
  bench.pathname = `/${databaseName}`;
  return {
    adminUrl: admin.href,
    databaseUrl: bench.href,
    databaseName,
    debtsPerTenant: Math.floor(positive('BENCH_DEBTS', c.BENCH_DEBTS)),
    durationSec: positive('BENCH_DURATION', c.BENCH_DURATION),
    warmupSec: c.BENCH_WARMUP,
    connections: Math.floor(positive('BENCH_CONNECTIONS', c.BENCH_CONNECTIONS)),
    webhookEvents: Math.floor(positive('BENCH_WEBHOOK_EVENTS', c.BENCH_WEBHOOK_EVENTS)),
    webhookRate: positive('BENCH_WEBHOOK_RATE', c.BENCH_WEBHOOK_RATE),
    retentionRate: positive('BENCH_RETENTION_RATE', c.BENCH_RETENTION_RATE),
    importRows: positive('BENCH_IMPORT_ROWS', c.BENCH_IMPORT_ROWS),
    importWorkers: positive('BENCH_IMPORT_WORKERS', c.BENCH_IMPORT_WORKERS),
    importBatch: Math.max(0, Math.floor(c.BENCH_IMPORT_BATCH)),
    portalCustomers: Math.floor(positive('BENCH_PORTAL_CUSTOMERS', c.BENCH_PORTAL_CUSTOMERS)),
    tokenClients: Math.floor(positive('BENCH_TOKEN_CLIENTS', c.BENCH_TOKEN_CLIENTS)),
    payoutPayments: Math.floor(positive('BENCH_PAYOUT_PAYMENTS', c.BENCH_PAYOUT_PAYMENTS)),
    webConcurrency: c.BENCH_WEB_CONCURRENCY > 0 ? Math.floor(c.BENCH_WEB_CONCURRENCY) : availableParallelism(),
    cpuProfileDir: c.BENCH_CPU_PROF ? resolve(c.BENCH_CPU_PROF) : '',
  };
}
