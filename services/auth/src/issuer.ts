/**
 * Assembles the issuer: configuration, database, signing keys, oidc-provider and the HTTP handler.
 * Separate from `server.ts` so tests and tools can start it in-process on any port.
 */
import { createServer, type Server } from 'node:http';
import { createDb, poolUsage, type Knex } from '@dms/db';
import { parseOrigins, resolveSecretsKey } from '@dms/config';
import { answerHeaderOverflow } from '@dms/lifecycle';
import { createLogger, type Logger } from '@dms/logger';
import { SecretBox } from '@dms/secrets';
import type { AuthConfig } from './config.js';
import { findActiveClient } from './domain/clients.js';
import { ensureSigningKey, loadSigningKeys } from './domain/signing-keys.js';
import { createAdapter } from './oauth/adapter.js';
import { createClientCache } from './oauth/client-cache.js';
import { findClientsThrough } from './oauth/client-lookup.js';
import { createProvider } from './oauth/provider.js';
import { watchIssuerChanges, type ChangeWatcher } from './oauth/change-watcher.js';
import { createIssuerApp, wwwAuthenticateOnInvalidClient, type ProviderHandler } from './http/app.js';
import { databaseUnavailableAs503, isUnavailableFault } from './http/database-unavailable.js';
import { createIssuerMetrics } from './http/metrics.js';
import { tokenRateLimit } from './http/token-rate-limit.js';
import { connectRedis } from '@dms/rate-limit';

/** A built issuer, not yet listening. */
export interface Issuer {
  server: Server;
  db: Knex;
  log: Logger;
  /** Reloads signing keys from the database and swaps the provider if they changed. */
  reloadKeys(): Promise<void>;
  /** Marks the issuer as draining (readiness turns 503). */
  drain(): void;
  /** Stops background work and closes the pool (after the server stopped accepting). */
  close(): Promise<void>;
}

/**
 * Builds the issuer from validated settings.
 * @throws when the database is unreachable or the secrets key cannot open the stored keys
 */
export async function buildIssuer(cfg: AuthConfig): Promise<Issuer> {
  const log = createLogger('auth', cfg.LOG_LEVEL);
  const db = createDb(cfg.DATABASE_URL, cfg.DATABASE_POOL_MAX);
  const box = new SecretBox(resolveSecretsKey(cfg));
  const metrics = createIssuerMetrics(() => poolUsage(db));
  const clients = createClientCache({
    load: (id) => findActiveClient(db, box, id),
    max: cfg.CLIENT_CACHE_MAX,
    ttlSeconds: cfg.CLIENT_CACHE_TTL_SECONDS,
  });
  const adapter = createAdapter({ clients });
  const alg = cfg.SIGNING_ALG;

  await ensureSigningKey(db, box, alg);

  let handler: ProviderHandler | undefined;
  let loadedKids = '';
  let draining = false;

  async function reloadKeys(): Promise<void> {
    const keys = await loadSigningKeys(db, box, cfg.ACCESS_TOKEN_TTL_SECONDS);
    const signature = `${keys.activeKid}|${keys.keys.map((k) => k.kid).join(',')}`;
    if (signature === loadedKids) return;
    const provider = createProvider({
      issuer: cfg.AUTH_ISSUER,
      audience: cfg.API_AUDIENCE,
      accessTokenTtlSeconds: cfg.ACCESS_TOKEN_TTL_SECONDS,
      keys,
      adapter,
    });
    // Without the cache oidc-provider's own lookup (adapter, then its small LRU of Clients) is as good.
    if (clients.enabled) findClientsThrough(provider, clients);
    provider.use(wwwAuthenticateOnInvalidClient);
    provider.use(databaseUnavailableAs503);
    provider.on('grant.success', (ctx) => metrics.tokensIssued.inc({ grant_type: String((ctx.oidc.params?.grant_type as string | undefined) ?? 'unknown') }));
    provider.on('grant.error', (_ctx, err) => metrics.tokenErrors.inc({ error: String((err as { error?: string }).error ?? 'server_error') }));
    provider.on('server_error', (ctx, err) => {
      if (isUnavailableFault(ctx, err))
        log.warn({ err: { message: err.message, code: (err as { code?: unknown }).code } }, 'token endpoint: database unavailable');
      else log.error({ err }, 'token endpoint server error');
    });
    handler = provider.callback();
    loadedKids = signature;
    log.info({ active_kid: keys.activeKid, published: keys.keys.length }, 'signing keys loaded');
  }

  await reloadKeys();
  const watcher: ChangeWatcher = watchIssuerChanges({ databaseUrl: cfg.DATABASE_URL, pollSeconds: cfg.KEY_RELOAD_SECONDS, reloadKeys, clients, log });
  const redis = cfg.REDIS_URL ? await connectRedis(cfg.REDIS_URL, log) : undefined;
  const tokenGate = tokenRateLimit({
    limit: cfg.TOKEN_FAILURE_LIMIT,
    windowSeconds: cfg.TOKEN_FAILURE_WINDOW_SECONDS,
    trustProxy: cfg.TRUST_PROXY,
    redis,
    log,
  });
  const corsOrigins = new Set(parseOrigins(cfg.CORS_ALLOWED_ORIGINS));
  const server = createServer(
    createIssuerApp({ db, log, metrics, issuer: cfg.AUTH_ISSUER, provider: () => handler, isDraining: () => draining, tokenGate, corsOrigins }),
  );
  server.keepAliveTimeout = 65_000;
  // RFC 6749 section 5.2's error body, not Node's bare 431 (docs/api.md section 3).
  answerHeaderOverflow(server, () => ({
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify({ error: 'invalid_request', error_description: "The request line and headers exceed the server's 16 KiB limit." }),
  }));

  return {
    server,
    db,
    log,
    reloadKeys,
    drain: () => {
      draining = true;
    },
    async close() {
      await watcher.close();
      await redis?.quit();
      await db.destroy();
    },
  };
}
