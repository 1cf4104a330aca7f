/**
 * Settings of the customer portal (services/portal, docs/api.md section 18), read and validated once at start.
 */
import { ConfigError, commonSpec, loadConfig, port, portalBaseUrlSpec, trustProxySpec, webConcurrencySpec } from '@dms/config';
import { paymentSettingsProblems, paymentSettingsSpec } from '@dms/payments';

/** envalid spec of the portal's environment variables (tools/src/settings.ts lists it for the operator's table). */
export const portalSpec = {
  ...commonSpec,
  PORT: port({ default: 3005, desc: 'HTTP port of the customer portal' }),
  PORTAL_BASE_URL: portalBaseUrlSpec(),
  TRUST_PROXY: trustProxySpec(),
  WEB_CONCURRENCY: webConcurrencySpec(),
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
