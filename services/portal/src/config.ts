/**
 * Settings of the customer portal (services/portal, docs/api.md section 18), read and validated once at start.
 */
import { commonSpec, loadConfig, port, str, portalBaseUrlSpec, trustProxySpec, webConcurrencySpec } from '@dms/config';

/** envalid spec of the portal's environment variables (tools/src/settings.ts lists it for the operator's table). */
export const portalSpec = {
  ...commonSpec,
  PORT: port({ default: 3005, desc: 'HTTP port of the customer portal' }),
  PORTAL_BASE_URL: portalBaseUrlSpec(),
  TRUST_PROXY: trustProxySpec(),
  WEB_CONCURRENCY: webConcurrencySpec(),
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
