/**
 * Settings of the issuer (services/auth), read and validated once at start.
 */
import { commonSpec, corsOriginsSpec, listenUrlSpec, loadConfig, num, port, str, trustProxySpec, webConcurrencySpec } from '@dms/config';

/** envalid spec of the issuer's environment variables; tools/src/settings.ts loads it by this name (keep both) for the operator's table. */
export const authSpec = {
  ...commonSpec,
  DATABASE_LISTEN_URL: listenUrlSpec(),
  PORT: port({ default: 4000, desc: 'HTTP port of the issuer' }),
  ACCESS_TOKEN_TTL_SECONDS: num({ default: 3600, desc: 'Lifetime of access tokens (expires_in), seconds' }),
  SIGNING_ALG: str({ default: 'RS256', choices: ['RS256', 'ES256'], desc: 'JWS algorithm of access tokens' }),
  KEY_RELOAD_SECONDS: num({ default: 30, desc: 'Fallback poll interval for signing-key changes (LISTEN/NOTIFY is the fast path)' }),
  CLIENT_CACHE_TTL_SECONDS: num({
    default: 30,
    desc: 'Lifetime of a cached client lookup, seconds; every client change also drops it on all instances as its notification arrives (LISTEN/NOTIFY). 0 reads the database on every token request',
  }),
  CLIENT_CACHE_MAX: num({ default: 10000, desc: 'Most clients an issuer process keeps cached (least recently used go first)' }),
  TOKEN_FAILURE_LIMIT: num({
    default: 60,
    desc: 'Failed token requests allowed per client_id and source address per window; beyond, every token request of that client from that address is 429 until the window ends (other clients behind the same proxy keep their own budgets)',
  }),
  TOKEN_FAILURE_WINDOW_SECONDS: num({ default: 60, desc: 'Window of TOKEN_FAILURE_LIMIT, seconds' }),
  TRUST_PROXY: trustProxySpec(),
  CORS_ALLOWED_ORIGINS: corsOriginsSpec(),
  WEB_CONCURRENCY: webConcurrencySpec(),
  REDIS_URL: str({ default: '', desc: 'Redis for the token-failure budgets shared by several issuer instances (in-memory when unset)' }),
};

export type AuthConfig = ReturnType<typeof loadAuthConfig>;

/** Loads the issuer's settings from `env`; exits with one line naming a bad setting. */
export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env, exitOnError = true) {
  return loadConfig(authSpec, env, exitOnError);
}
