/**
 * Settings of the resource API (services/api), read and validated once at start.
 */
import {
  bool,
  commonSpec,
  ConfigError,
  corsOriginsSpec,
  parseOrigins,
  loadConfig,
  num,
  port,
  portalBaseUrlSpec,
  str,
  trustProxySpec,
  webConcurrencySpec,
} from '@dms/config';
import { DEFAULT_SEARCH_TOTAL_CAP } from '@dms/search';
import { paymentSettingsProblems, paymentSettingsSpec } from '@dms/payments';
import { channelSpec } from '@dms/channels/settings';

/** envalid spec of the API's environment variables; tools/src/settings.ts loads it by this name (keep both) for the operator's table. */
export const apiSpec = {
  ...commonSpec,
  PORT: port({ default: 3000, desc: 'HTTP port of the API' }),
  JWKS_URI: str({ default: '', desc: 'JWKS of the issuer (default `${AUTH_ISSUER}/.well-known/jwks.json`)' }),
  PUBLIC_BASE_URL: str({ default: '', desc: 'Public base URL of the API used in Link headers (default `http://localhost:${PORT}`)' }),
  // The links of `POST /customers/{id}/portal_links` (docs/api.md section 18).
  PORTAL_BASE_URL: portalBaseUrlSpec(),
  ALLOW_PRIVATE_WEBHOOK_TARGETS: bool({ default: false, desc: 'Allow webhook URLs on loopback/private networks (development and tests only)' }),
  IMPORT_MAX_BYTES: num({ default: 1024 * 1024 * 1024, desc: 'Largest file POST /imports takes, bytes (larger: 413 file_too_large)' }),
  RATE_LIMIT_PER_MINUTE: num({ default: 600, desc: 'Requests per client per window' }),
  RATE_LIMIT_WINDOW_SECONDS: num({ default: 60, desc: 'Rate-limit window, seconds' }),
  REDIS_URL: str({ default: '', desc: 'Redis for rate-limit budgets shared by several API instances (in-memory when unset)' }),
  AUTH_FAILURE_LIMIT: num({
    default: 100,
    desc: 'Requests with a missing or invalid token allowed per source address per window; beyond, 429 (valid tokens are never limited by it)',
  }),
  AUTH_FAILURE_WINDOW_SECONDS: num({ default: 60, desc: 'Window of AUTH_FAILURE_LIMIT, seconds' }),
  TRUST_PROXY: trustProxySpec(),
  CORS_ALLOWED_ORIGINS: corsOriginsSpec(),
  WEB_CONCURRENCY: webConcurrencySpec(),
  SEARCH_TOTAL_CAP: num({
    default: DEFAULT_SEARCH_TOTAL_CAP,
    desc: 'Matches a search counts exactly; past it X-Total-Count is this number and X-Total-Count-Relation is `gte` (docs/api.md section 4). Whole number >= 1',
  }),
  INBOUND_MAIL_SECRET: str({
    default: '',
    desc: 'Bearer secret of `POST /callbacks/email` (mail to REPLY_DOMAIN forwarded raw); empty: inbound mail is refused (npm start sets one for its local mail server)',
  }),
  // The channel settings the callbacks need: SMS signatures, reply and bounce addresses, letters (docs/api.md section 13).
  MAIL_FROM: channelSpec.MAIL_FROM,
  REPLY_DOMAIN: channelSpec.REPLY_DOMAIN,
  REPLY_ADDRESS_SECRET: channelSpec.REPLY_ADDRESS_SECRET,
  SMS_API_KEY: channelSpec.SMS_API_KEY,
  SMS_SIGNATURE_SECRET: channelSpec.SMS_SIGNATURE_SECRET,
  SMS_SIGNATURE_METHOD: channelSpec.SMS_SIGNATURE_METHOD,
  SMS_SIGNATURE_TOLERANCE_SECONDS: channelSpec.SMS_SIGNATURE_TOLERANCE_SECONDS,
  LETTER_DIR: channelSpec.LETTER_DIR,
  // The portal's payment provider: a refund of its payment goes through it (docs/api.md sections 8 and 18).
  ...paymentSettingsSpec(),
};

/** The API's validated settings with derived defaults filled in. */
export type ApiConfig = ReturnType<typeof loadApiConfig>;

/** Loads the API's settings from `env`; exits with one line naming a bad setting (or throws `ConfigError` when `exitOnError` is false), including `stripe` chosen without its keys. */
export function loadApiConfig(env: NodeJS.ProcessEnv = process.env, exitOnError = true) {
  const cfg = loadConfig(apiSpec, env, exitOnError);
  // envalid's num takes any number; the cap becomes a SQL LIMIT, so only whole numbers >= 1 make sense.
  const capProblem = Number.isSafeInteger(cfg.SEARCH_TOTAL_CAP) && cfg.SEARCH_TOTAL_CAP >= 1 ? [] : ['SEARCH_TOTAL_CAP: must be a whole number greater than 0'];
  // `stripe` chosen without its keys stops the start, as in the portal.
  const problems = [...capProblem, ...paymentSettingsProblems(cfg)];
  if (problems.length > 0) {
    const message = problems.join('; ');
    if (!exitOnError) throw new ConfigError(`config error: ${message}`);
    process.stderr.write(`config error: ${message}\n`);
    process.exit(1);
  }
  return {
    ...cfg,
    JWKS_URI: cfg.JWKS_URI || new URL('/.well-known/jwks.json', cfg.AUTH_ISSUER).href,
    PUBLIC_BASE_URL: (cfg.PUBLIC_BASE_URL || `http://localhost:${cfg.PORT}`).replace(/\/$/, ''),
    corsOrigins: parseOrigins(cfg.CORS_ALLOWED_ORIGINS),
  };
}
