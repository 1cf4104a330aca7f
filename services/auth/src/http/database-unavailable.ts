/**
 * The token endpoint while the database cannot serve (a failover, a restart; deploy/README.md,
 * "High availability"): oidc-provider answers every fault 500 `server_error`; a fault of the
 * database becomes 503 `temporarily_unavailable` with `Retry-After` instead, as the API answers
 * such requests (docs/api.md section 3), so clients retry shortly rather than give up.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { isDatabaseBusy } from '@dms/db';

/** Seconds a client is asked to wait after such a 503. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** Requests whose fault was the database's (noted by `isUnavailableFault` from the provider's `server_error` event). */
const unavailable = new WeakSet<object>();

/**
 * Listener of oidc-provider's `server_error` event: notes the request when `err` (or its cause) is
 * a database that could not serve, and says so.
 * @returns true when the fault was the database's (log it as a warning, not as an error)
 */
export function isUnavailableFault(ctx: object, err: unknown): boolean {
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  if (!isDatabaseBusy(err) && !isDatabaseBusy(cause)) return false;
  unavailable.add(ctx);
  return true;
}

/** Koa middleware installed on each provider instance: rewrites the noted 500s to 503. */
export async function databaseUnavailableAs503(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  await next();
  if (ctx.status !== 500 || !unavailable.has(ctx)) return;
  ctx.status = 503;
  ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'temporarily_unavailable', error_description: `the database is unavailable; retry after ${UNAVAILABLE_RETRY_AFTER_SECONDS} s` };
}
