/**
 * PostgreSQL store of idempotency keys (docs/api.md section 3; the model of Stripe's idempotent
 * requests and the IETF draft "The Idempotency-Key HTTP Header Field").
 *
 * A request claims its key with one `INSERT … ON CONFLICT DO UPDATE … WHERE` statement: the primary
 * key (tenant, client, key) serialises concurrent claims in the database, so exactly one request
 * wins even when the others arrive at other API instances. The winner holds the row in state
 * `processing` until it stores its response (`completed`) or gives the claim back (server fault,
 * aborted request). A row is taken over only once it expired, or when a `processing` claim was
 * abandoned by a crashed process for longer than `lockSeconds`.
 *
 * Stored response bodies are sealed with the `SECRETS_KEY` SecretBox: a replayed response can
 * carry a secret shown only once (a webhook endpoint's `signing_secret`), and secrets are never
 * kept in plain text. A customer's erasure removes the responses that concerned them and sets
 * `erased_at` (libs/domain's personal-data erasure); such a key answers `erased`.
 */
import { randomUUID } from 'node:crypto';
import { neverReachedDatabase, retryWhileUnavailable, type Knex } from '@dms/db';
import type { SecretBox } from '@dms/secrets';

/** Who owns a key: keys are private to one client of one tenant. */
export interface IdempotencyScope {
  tenantId: string;
  clientId: string;
  key: string;
}

/** What identifies the request that first used a key. */
export interface IdempotentRequest {
  /** SHA-256 hex of method, path and body (see `requestFingerprint`). */
  fingerprint: string;
  method: string;
  path: string;
}

/** A response as stored for replay. `body` is the exact JSON text sent the first time. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Outcome of a claim. */
export type ClaimResult =
  | { outcome: 'claimed'; claim: string }
  | { outcome: 'replay'; response: StoredResponse }
  | { outcome: 'in_use' }
  | { outcome: 'erased' }
  | { outcome: 'mismatch'; method: string; path: string };

/** Settings of the store. */
export interface IdempotencyStoreOptions {
  /** How long a key is remembered, seconds (docs/api.md section 3: 24 h). */
  ttlSeconds?: number;
  /**
   * After how many seconds a `processing` claim counts as abandoned (its process died). Longer than
   * any request can run, so a live request is never taken over.
   */
  lockSeconds?: number;
}

/** The store's operations; all are single statements, safe under concurrency. */
export interface IdempotencyStore {
  /**
   * Claims `scope.key` for `request`, or reports why not.
   * @returns `claimed` (run the request, then `complete` or `release`), `replay` (same request
   *   completed before), `in_use` (same key still processing), `erased` (same request completed
   *   before, its response removed by a customer's erasure), `mismatch` (key used for another request)
   */
  claim(scope: IdempotencyScope, request: IdempotentRequest): Promise<ClaimResult>;
  /**
   * Stores the response of a claimed request. A no-op when the claim was lost meanwhile.
   * @param trx the request's transaction: the response then commits with the write itself
   *   (docs/api.md section 11); omitted, it is stored on its own
   */
  complete(scope: IdempotencyScope, claim: string, response: StoredResponse, trx?: Knex.Transaction): Promise<void>;
  /**
   * Gives the key back so that a retry runs the request again (server faults, aborted requests).
   * While no primary can serve (a failover) it keeps trying for up to RELEASE_RETRY_MS, so the
   * client's retry after the 503 finds the key free rather than in use.
   */
  release(scope: IdempotencyScope, claim: string): Promise<void>;
  /**
   * Deletes up to `batch` expired keys.
   * @returns the number deleted
   */
  purgeExpired(batch?: number): Promise<number>;
}

/** Default time a key and its stored response are kept, in seconds (24 h, as Stripe). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/** Default lease of an in-flight key, in seconds: after it, a retry of the same request claims the key again (the first run is presumed dead). */
export const IDEMPOTENCY_LOCK_SECONDS = 120;
/**
 * How long giving a claim back is retried while the database is unavailable, milliseconds: longer
 * than a failover takes (deploy/README.md, "High availability"). Past it the key stays in use until
 * IDEMPOTENCY_LOCK_SECONDS.
 */
export const RELEASE_RETRY_MS = 30_000;

interface KeyRow {
  fingerprint: string;
  method: string;
  path: string;
  state: 'processing' | 'completed';
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  erased_at: Date | null;
}

/**
 * Creates the store on `db` (table `idempotency_keys`, migration 005).
 * @param box seals stored response bodies (AES-256-GCM)
 */
export function createIdempotencyStore(db: Knex, box: SecretBox, opts: IdempotencyStoreOptions = {}): IdempotencyStore {
  const ttl = opts.ttlSeconds ?? IDEMPOTENCY_TTL_SECONDS;
  const lock = opts.lockSeconds ?? IDEMPOTENCY_LOCK_SECONDS;
  const pk = (s: IdempotencyScope) => ({ tenant_id: s.tenantId, client_id: s.clientId, key: s.key });

  async function tryClaim(scope: IdempotencyScope, request: IdempotentRequest, claim: string): Promise<boolean> {
    // Times come from the database clock so that all API instances agree on expiry and lock age.
    const { rows } = await db.raw(
      `INSERT INTO idempotency_keys AS k
         (tenant_id, client_id, key, fingerprint, method, path, state, claim, locked_at, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, 'processing', ?, now(), now(), now() + make_interval(secs => ?))
       ON CONFLICT (tenant_id, client_id, key) DO UPDATE SET
         fingerprint = EXCLUDED.fingerprint, method = EXCLUDED.method, path = EXCLUDED.path,
         state = 'processing', claim = EXCLUDED.claim, locked_at = now(), created_at = now(),
         expires_at = EXCLUDED.expires_at, response_status = NULL, response_headers = NULL, response_body = NULL, erased_at = NULL
       WHERE k.expires_at <= now()
          OR (k.state = 'processing' AND k.fingerprint = EXCLUDED.fingerprint
              AND k.locked_at <= now() - make_interval(secs => ?))
       RETURNING claim`,
      [scope.tenantId, scope.clientId, scope.key, request.fingerprint, request.method, request.path, claim, ttl, lock],
    );
    return rows.length === 1 && rows[0].claim === claim;
  }

  const release = async (scope: IdempotencyScope, claim: string) => {
    // A delete by claim: repeating it does what one run does.
    await retryWhileUnavailable(
      () =>
        db('idempotency_keys')
          .where({ ...pk(scope), claim, state: 'processing' })
          .delete(),
      { withinMs: RELEASE_RETRY_MS },
    );
  };

  return {
    async claim(scope, request) {
      // Two rounds at most: a row purged between the claim and the read is simply claimed again.
      for (let round = 0; round < 2; round++) {
        const claim = randomUUID();
        let won: boolean;
        try {
          won = await tryClaim(scope, request, claim);
        } catch (err) {
          // The claim may have committed although its answer was lost (the primary failed): give
          // it back before answering, or the retry would find the key in use.
          if (!neverReachedDatabase(err)) await release(scope, claim).catch(() => {});
          throw err;
        }
        if (won) return { outcome: 'claimed', claim };
        const row = await db<KeyRow>('idempotency_keys')
          .where(pk(scope))
          .where('expires_at', '>', db.fn.now())
          .first('fingerprint', 'method', 'path', 'state', 'response_status', 'response_headers', 'response_body', 'erased_at');
        if (!row) continue;
        if (row.fingerprint !== request.fingerprint) return { outcome: 'mismatch', method: row.method, path: row.path };
        if (row.state === 'processing') return { outcome: 'in_use' };
        if (row.erased_at) return { outcome: 'erased' };
        return {
          outcome: 'replay',
          response: { status: row.response_status!, headers: row.response_headers ?? {}, body: row.response_body === null ? '' : box.open(row.response_body) },
        };
      }
      return { outcome: 'in_use' };
    },

    async complete(scope, claim, response, trx) {
      const q = trx ?? db;
      await q('idempotency_keys')
        .where({ ...pk(scope), claim, state: 'processing' })
        .update({
          state: 'completed',
          response_status: response.status,
          response_headers: JSON.stringify(response.headers),
          response_body: box.seal(response.body),
          locked_at: q.fn.now(),
        });
    },

    release,

    async purgeExpired(batch = 1000) {
      // Bounded batches keep each purge short; the index on expires_at finds the victims.
      const { rowCount } = await db.raw(
        `DELETE FROM idempotency_keys WHERE ctid IN
           (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT ?)`,
        [batch],
      );
      return rowCount ?? 0;
    },
  };
}
