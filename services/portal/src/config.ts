/**
 * Settings of the customer portal (services/portal, docs/api.md section 18), read and validated once at start.
 */
import { ConfigError, commonSpec, loadConfig, num, port, portalBaseUrlSpec, str, trustProxySpec, webConcurrencySpec } from '@dms/config';
import { paymentSettingsProblems, paymentSettingsSpec } from '@dms/payments';

/** Defaults of the portal's rate limits (rate-limit.ts): requests per key per window, window in seconds. */
export const PORTAL_RATE_LIMIT_DEFAULTS = { perLink: 20, perAddress: 60, posts: 120, windowSeconds: 900 } as const;

/** envalid spec of the portal's environment variables (tools/src/settings.ts lists it for the operator's table). */
export const portalSpec = {
  ...commonSpec,
  PORT: port({ default: 3005, desc: 'HTTP port of the customer portal' }),
  PORTAL_BASE_URL: portalBaseUrlSpec(),
  TRUST_PROXY: trustProxySpec(),
  WEB_CONCURRENCY: webConcurrencySpec(),
  PORTAL_RATE_LIMIT_PER_LINK: num({
    default: PORTAL_RATE_LIMIT_DEFAULTS.perLink,
    desc: 'Link opens and verification attempts per portal link per window (docs/api.md section 18)',
  }),
  PORTAL_RATE_LIMIT_PER_ADDRESS: num({
    default: PORTAL_RATE_LIMIT_DEFAULTS.perAddress,
    desc: 'Link opens and verification attempts per source address per window',
  }),
  PORTAL_RATE_LIMIT_POSTS: num({
    default: PORTAL_RATE_LIMIT_DEFAULTS.posts,
    desc: 'Portal form posts (every POST but the payment callback) per source address per window',
  }),
  PORTAL_RATE_LIMIT_WINDOW_SECONDS: num({ default: PORTAL_RATE_LIMIT_DEFAULTS.windowSeconds, desc: 'Window of the portal rate limits, seconds' }),
  REDIS_URL: str({ default: '', desc: 'Redis for the portal rate-limit budgets shared by several portal instances (in-memory when unset)' }),
  ...paymentSettingsSpec(),
};

export type PortalConfig = ReturnType<typeof loadPortalConfig>;

/**
 * Loads the portal's settings from `env`; exits with one line naming a bad setting (or throws
 * `ConfigError` when `exitOnError` is false), including `stripe` chosen without its keys.
 */
export function loadPortalConfig(env: NodeJS.ProcessEnv = process.env, exitOnError = true) {
  const cfg = loadConfig(portalSpec, env, exitOnError);
  const problems = paymentSettingsProblems(cfg);
  if (problems.length === 0) return cfg;
  const line = `config error: ${problems.join('; ')}`;
  if (!exitOnError) throw new ConfigError(line);
  process.stderr.write(`${line}\n`);
  process.exit(1);
}
