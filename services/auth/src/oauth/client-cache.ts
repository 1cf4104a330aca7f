/**
 * In-process cache of client lookups for the token endpoint (docs/api.md section 2), so a token
 * request usually costs no database round trip and no secret decryption.
 *
 * Revocation and secret rotation must still take effect on every issuer instance as soon as their
 * notification arrives (milliseconds after the commit; a request already being answered may still
 * see the old entry), so the cache is only trusted while this process is sure to hear of every change:
 * - every client write NOTIFYs `OAUTH_CLIENTS_CHANNEL` in its transaction; `invalidate(clientId)`
 *   drops the entry when the notification arrives (see change-watcher.ts);
 * - until the LISTEN is in place, and from the moment its connection is lost until it is in place
 *   again, the cache is empty and bypassed (`suspend`/`resume`): a notification sent meanwhile is
 *   lost, and nothing cached before it may be served after it;
 * - a lookup that was already running when an invalidation (or a suspend/resume) happened is not
 *   stored: it may have read the row before the change committed;
 * - entries also expire after `ttlSeconds`, a backstop for a connection that dies without an error
 *   (no FIN or RST), and the cache holds at most `max` clients (least recently used go first).
 * Unknown and revoked clients are never cached: their ids are chosen by whoever sends the request.
 */
import { LRUCache } from 'lru-cache';
import type { StoredClient } from '../domain/clients.js';

/** Settings of the cache. `ttlSeconds` or `max` 0 turns it off (every lookup reads the database). */
export interface ClientCacheOptions {
  /** Reads an active client from the database, or undefined (unknown or revoked). */
  load: (clientId: string) => Promise<StoredClient | undefined>;
  /** Most clients kept. */
  max: number;
  /** Lifetime of an entry, seconds. */
  ttlSeconds: number;
}

/** A client lookup that may answer from memory; see the module comment for when it does. */
export interface ClientCache {
  /** False when the settings turned the cache off: every `find` reads the database. */
  readonly enabled: boolean;
  /** The active client `clientId`, or undefined. @throws what `load` throws */
  find(clientId: string): Promise<StoredClient | undefined>;
  /** Drops one client (a change notification), or every client when `clientId` is undefined. */
  invalidate(clientId?: string): void;
  /** The change notifications are no longer heard: empty the cache and bypass it. */
  suspend(): void;
  /** The change notifications are heard again: start caching from empty. */
  resume(): void;
}

/** Builds a cache, suspended until the first `resume()`. */
export function createClientCache({ load, max, ttlSeconds }: ClientCacheOptions): ClientCache {
  if (ttlSeconds <= 0 || max < 1) return { enabled: false, find: load, invalidate() {}, suspend() {}, resume() {} };
  const entries = new LRUCache<string, StoredClient>({ max, ttl: ttlSeconds * 1000 });
  let listening = false;
  // Bumped by every invalidation, suspend and resume; a lookup stores its result only if the
  // generation it started in is still current when it ends.
  let generation = 0;

  const reset = (nowListening: boolean) => {
    generation++;
    entries.clear();
    listening = nowListening;
  };

  return {
    enabled: true,
    async find(clientId) {
      if (!listening) return load(clientId);
      const hit = entries.get(clientId);
      if (hit) return hit;
      const started = generation;
      const client = await load(clientId);
      if (client && listening && started === generation) entries.set(clientId, client);
      return client;
    },
    invalidate(clientId) {
      generation++;
      if (clientId === undefined) entries.clear();
      else entries.delete(clientId);
    },
    suspend: () => reset(false),
    resume: () => reset(true),
  };
}
