/**
 * Settings of the worker for time-driven changes (services/worker, docs/api.md sections 1 and 9),
 * read and validated once at start. The clock offset and the hold before commit exist for tests and
 * local demonstrations and are refused in production. The channel settings (docs/api.md section 13)
 * are the collection engine's, which sends communications from the worker.
 */
import { channelSettingsProblems, channelSpec } from '@dms/channels/settings';
import { paymentSettingsProblems, paymentSettingsSpec } from '@dms/payments';
import { bool, commonSpec, loadConfig, num, port, portalBaseUrlSpec, str } from '@dms/config';

/** envalid spec of the worker's environment variables; tools/src/settings.ts loads it by this name (keep both) for the operator's table. */
export const workerSpec = {
  ...commonSpec,
  PORT: port({ default: 3002, desc: 'HTTP port of the health, readiness and metrics endpoints' }),
  WORKER_POLL_SECONDS: num({ default: 5, desc: 'Seconds between checks for missed instalments and ending pauses' }),
  WORKER_BATCH_SIZE: num({ default: 100, desc: 'Most changes of each kind made per check (each in its own transaction)' }),
  WORKER_TENANT_IDS: str({ default: '', desc: 'Serve only these tenants (comma separated; empty = all): isolated test runs' }),
  WORKER_CLOCK_OFFSET_SECONDS: num({
    default: 0,
    desc: 'Seconds added to the database clock when deciding what is due (demos and tests only; must be 0 in production)',
  }),
  EVENT_RETENTION_DAYS: num({
    default: 30,
    desc: 'Events, deliveries and attempts older than this are dropped by whole time partitions (fractions allowed: the bench compresses time)',
  }),
  WORKER_TEST_HOLD_MS: num({
    default: 0,
    desc: 'Test only (NODE_ENV=test): wait this long inside each change before committing, to test a worker killed midway',
  }),
  ENGINE_ENABLED: bool({ default: true, desc: 'Run the collection engine (docs/api.md section 13): take prepared debts in and send their strategy steps' }),
  ENGINE_RECONCILE_AFTER_SECONDS: num({
    default: 600,
    desc: 'Seconds after handing a communication to its provider before one whose outcome was never recorded is reconciled (asked of the provider, else failed)',
  }),
  ENGINE_HAND_OVER_LEASE_SECONDS: num({
    default: 60,
    desc: 'Seconds a worker has to hand over a communication it made or claimed; one killed before that leaves it to the other workers after them',
  }),
  ENGINE_RETRY_HOURS: num({
    default: 24,
    desc: 'Hours after its first attempt during which a communication its provider refused for now (SMTP 4xx, no connection, SMS throttling) is handed over again; past them it fails',
  }),
  ENGINE_RETRY_BASE_SECONDS: num({
    default: 60,
    desc: 'Seconds before the second attempt of a communication refused for now; doubled for each later one (with jitter)',
  }),
  ENGINE_RETRY_MAX_SECONDS: num({ default: 3600, desc: 'Longest wait, in seconds, between two attempts of a communication refused for now' }),
  // Each communication's own portal link (`{{ payment_link }}`): docs/api.md section 18.
  PORTAL_BASE_URL: portalBaseUrlSpec(),
  // Plans and pay-later promises are charged through the provider that saved their method.
  ...paymentSettingsSpec(),
  IMPORT_BATCH_SIZE: num({
    default: 200,
    desc: 'Rows of one import lane a worker reads per claim (applied IMPORT_ROWS_PER_TRANSACTION placements, or one row of another type, per transaction)',
  }),
  IMPORT_ROWS_PER_TRANSACTION: num({
    default: 1,
    desc: 'Placement rows applied per transaction, set-wise. 1: each row in a transaction of its own, as docs/api.md section 16 states; more: faster, the rows of one transaction commit together (a refused row is still skipped whole)',
  }),
  IMPORT_LEASE_SECONDS: num({ default: 60, desc: "Seconds an import lane stays a worker's without progress; a killed worker's lane is taken over after it" }),
  IMPORT_TEST_HOLD_MS: num({
    default: 0,
    desc: 'Test only (NODE_ENV=test): wait this long inside each import transaction before committing, to test a worker killed midway',
  }),
  ...channelSpec,
};

/** The worker's validated settings with derived values. */
export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;

/** Loads the worker's settings from `env`; exits (or throws, with `exitOnError` false) with one line naming a bad setting. */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env, exitOnError = true) {
  const cfg = loadConfig(workerSpec, env, exitOnError);
  const fail = (message: string): never => {
    if (!exitOnError) throw new Error(`config error: ${message}`);
    process.stderr.write(`config error: ${message}\n`);
    process.exit(1);
  };
  if (!(cfg.WORKER_POLL_SECONDS > 0)) fail('WORKER_POLL_SECONDS: must be greater than 0');
  // The worker charges saved methods through the chosen provider: `stripe` needs its keys here too.
  const payments = paymentSettingsProblems(cfg);
  if (payments.length > 0) fail(payments.join('; ').replace(/^config error: /, ''));
  if (!(cfg.ENGINE_RECONCILE_AFTER_SECONDS > 0)) fail('ENGINE_RECONCILE_AFTER_SECONDS: must be greater than 0');
  if (!(cfg.ENGINE_HAND_OVER_LEASE_SECONDS > 0)) fail('ENGINE_HAND_OVER_LEASE_SECONDS: must be greater than 0');
  if (!(cfg.ENGINE_RETRY_HOURS > 0)) fail('ENGINE_RETRY_HOURS: must be greater than 0');
  if (!(cfg.ENGINE_RETRY_BASE_SECONDS > 0)) fail('ENGINE_RETRY_BASE_SECONDS: must be greater than 0');
  if (!(cfg.ENGINE_RETRY_MAX_SECONDS >= cfg.ENGINE_RETRY_BASE_SECONDS)) fail('ENGINE_RETRY_MAX_SECONDS: must be at least ENGINE_RETRY_BASE_SECONDS');
  if (!(cfg.EVENT_RETENTION_DAYS > 0)) fail('EVENT_RETENTION_DAYS: must be greater than 0');
  if (!(Number.isInteger(cfg.WORKER_BATCH_SIZE) && cfg.WORKER_BATCH_SIZE > 0)) fail('WORKER_BATCH_SIZE: must be a whole number greater than 0');
  if (cfg.NODE_ENV === 'production' && cfg.WORKER_CLOCK_OFFSET_SECONDS !== 0) fail('WORKER_CLOCK_OFFSET_SECONDS: must be 0 in production');
  if (cfg.WORKER_TEST_HOLD_MS < 0 || (cfg.WORKER_TEST_HOLD_MS > 0 && cfg.NODE_ENV !== 'test'))
    fail('WORKER_TEST_HOLD_MS: only with NODE_ENV=test, and not negative');
  if (!(Number.isInteger(cfg.IMPORT_BATCH_SIZE) && cfg.IMPORT_BATCH_SIZE > 0)) fail('IMPORT_BATCH_SIZE: must be a whole number greater than 0');
  if (!(Number.isInteger(cfg.IMPORT_ROWS_PER_TRANSACTION) && cfg.IMPORT_ROWS_PER_TRANSACTION > 0))
    fail('IMPORT_ROWS_PER_TRANSACTION: must be a whole number greater than 0');
  if (!(cfg.IMPORT_LEASE_SECONDS > 0)) fail('IMPORT_LEASE_SECONDS: must be greater than 0');
  if (cfg.IMPORT_TEST_HOLD_MS < 0 || (cfg.IMPORT_TEST_HOLD_MS > 0 && cfg.NODE_ENV !== 'test'))
    fail('IMPORT_TEST_HOLD_MS: only with NODE_ENV=test, and not negative');
  const [channelProblem] = channelSettingsProblems(cfg);
  if (channelProblem) fail(channelProblem);
  return {
    ...cfg,
    tenantIds: cfg.WORKER_TENANT_IDS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  };
}
