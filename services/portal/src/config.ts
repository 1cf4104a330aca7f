/**
 * Settings of the customer portal (services/portal, docs/api.md section 18), read and validated once at start.
 */
import { commonSpec, loadConfig, num, port, str, portalBaseUrlSpec, trustProxySpec, webConcurrencySpec } from '@dms/config';

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
  PAYMENT_PROVIDER: str({
    default: 'local',
    choices: ['local'],
    desc: 'Payment provider of the portal: `local` (hosted test checkout with Stripe test cards, signed callbacks; docs/api.md section 18)',
  }),
};

export type PortalConfig = ReturnType<typeof loadPortalConfig>;

/** Loads the portal's settings from `env`; exits with one line naming a bad setting. */
export function loadPortalConfig(env: NodeJS.ProcessEnv = process.env, exitOnError = true) {
  return loadConfig(portalSpec, env, exitOnError);
}
