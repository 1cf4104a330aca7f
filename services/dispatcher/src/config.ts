/**
 * Settings of the webhook dispatcher (services/dispatcher), read and validated once at start
 * (docs/api.md sections 1 and 7). Every setting has a production default; tests shorten the schedule
 * and timeouts.
 */
import { bool, commonSpec, listenUrlSpec, loadConfig, num, port, str } from '@dms/config';
import { parseSchedule } from '@dms/webhook-delivery';

/** envalid spec of the dispatcher's environment variables; tools/src/settings.ts loads it by this name (keep both) for the operator's table. */
export const dispatcherSpec = {
  ...commonSpec,
  DATABASE_LISTEN_URL: listenUrlSpec(),
  PORT: port({ default: 3001, desc: 'HTTP port of the health, readiness and metrics endpoints' }),
  DISPATCH_SCHEDULE_SECONDS: str({
    default: '0,5,300,1800,7200,18000,36000,36000',
    desc: 'Delay before each attempt, seconds, comma separated: the first applies to the first attempt, the last entry is the last attempt',
  }),
  DISPATCH_JITTER: num({ default: 0.1, desc: 'Retry delays vary randomly by up to this fraction (0.1 = ±10%)' }),
  DISPATCH_CONCURRENCY: num({ default: 32, desc: 'Attempts in flight at once in this process' }),
  DISPATCH_BATCH_SIZE: num({ default: 32, desc: 'Deliveries claimed per database round trip' }),
  DISPATCH_POLL_SECONDS: num({ default: 1, desc: 'Longest wait between queue checks when no notification arrives' }),
  DELIVERY_TIMEOUT_SECONDS: num({ default: 15, desc: 'Time limit of one HTTP request to a receiver or token endpoint' }),
  DISPATCH_LEASE_SECONDS: num({
    default: 0,
    desc: 'Visibility timeout of a claimed delivery: another dispatcher re-sends it after this (0 = 4 x DELIVERY_TIMEOUT_SECONDS + 10)',
  }),
  TOKEN_REFRESH_MARGIN_SECONDS: num({ default: 30, desc: 'An OAuth token is renewed this long before it expires (at most a tenth of its lifetime)' }),
  DISPATCH_TENANT_IDS: str({ default: '', desc: 'Serve only these tenants (comma separated; empty = all): dedicated capacity, isolated test runs' }),
  ALLOW_PRIVATE_WEBHOOK_TARGETS: bool({ default: false, desc: 'Allow delivering to loopback/private addresses (development and tests only)' }),
};

/** The dispatcher's validated settings with derived values. */
export type DispatcherConfig = ReturnType<typeof loadDispatcherConfig>;

/** Loads the dispatcher's settings from `env`; exits with one line naming a bad setting. */
export function loadDispatcherConfig(env: NodeJS.ProcessEnv = process.env, exitOnError = true) {
  const cfg = loadConfig(dispatcherSpec, env, exitOnError);
  const fail = (message: string): never => {
    if (!exitOnError) throw new Error(`config error: ${message}`);
    process.stderr.write(`config error: ${message}\n`);
    process.exit(1);
  };
  let schedule: number[] = [];
  try {
    schedule = parseSchedule(cfg.DISPATCH_SCHEDULE_SECONDS);
  } catch (err) {
    fail(`DISPATCH_SCHEDULE_SECONDS: ${(err as Error).message}`);
  }
  for (const name of ['DISPATCH_CONCURRENCY', 'DISPATCH_BATCH_SIZE', 'DISPATCH_POLL_SECONDS', 'DELIVERY_TIMEOUT_SECONDS'] as const) {
    if (!(cfg[name] > 0)) fail(`${name}: must be greater than 0`);
  }
  if (!(cfg.DISPATCH_JITTER >= 0 && cfg.DISPATCH_JITTER < 1)) fail('DISPATCH_JITTER: must be from 0 to below 1');
  const leaseSeconds = cfg.DISPATCH_LEASE_SECONDS || 4 * cfg.DELIVERY_TIMEOUT_SECONDS + 10;
  if (leaseSeconds <= cfg.DELIVERY_TIMEOUT_SECONDS) fail('DISPATCH_LEASE_SECONDS: must exceed DELIVERY_TIMEOUT_SECONDS');
  return {
    ...cfg,
    schedule,
    leaseSeconds,
    tenantIds: cfg.DISPATCH_TENANT_IDS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  };
}
