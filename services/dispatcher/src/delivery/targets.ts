/**
 * Loads what a batch of claimed deliveries needs: their endpoints (secrets decrypted in memory
 * only) and their events, one query each for the whole batch.
 */
import type { Knex } from '@dms/db';
import type { SecretBox } from '@dms/secrets';
import type { ClaimedDelivery, SignatureScheme, StoredEvent } from '@dms/webhook-delivery';
import type { ClientCredentials } from '../oauth/client-credentials.js';

/** An endpoint as the dispatcher needs it. */
export interface EndpointTarget {
  id: string;
  url: string;
  version: string;
  /** False when disabled or deleted: its deliveries are canceled. */
  active: boolean;
  /** `whsec_…` secrets to sign with: the current one, then the one it replaced while that is still honoured (docs/api.md section 11). */
  signingSecrets: string[];
  signatureScheme: SignatureScheme;
  credentials?: ClientCredentials;
}

interface EndpointRow {
  id: string;
  url: string;
  version: string;
  enabled: boolean;
  deleted_at: Date | null;
  signing_secret_ciphertext: string;
  signature_scheme: SignatureScheme;
  /** Set while a rotated-out secret still signs (`previous_signing_secret_expires_at` is ahead). */
  previous_signing_secret: string | null;
  oauth2_token_url: string | null;
  oauth2_client_id: string | null;
  oauth2_client_secret_ciphertext: string | null;
  credentials_version: number;
}

/** The endpoints and events of a batch of claimed deliveries, by id. */
export interface BatchTargets {
  /** Reading an endpoint decrypts its secrets; it throws `SecretDecryptionError` when they cannot be. */
  endpoints: Map<string, () => EndpointTarget>;
  events: Map<string, StoredEvent>;
}

/** Loads the endpoints and events of `claimed`, two queries for the whole batch. */
export async function loadBatchTargets(db: Knex, box: SecretBox, claimed: readonly ClaimedDelivery[]): Promise<BatchTargets> {
  const [endpoints, events] = await Promise.all([
    loadEndpoints(
      db,
      box,
      claimed.map((d) => d.endpoint_id),
    ),
    loadEvents(
      db,
      claimed.map((d) => d.event_id),
    ),
  ]);
  return { endpoints, events };
}

/**
 * Endpoints by id. A secret that cannot be decrypted (wrong `SECRETS_KEY`) throws
 * `SecretDecryptionError` when the target is read, failing only the attempts to that endpoint.
 * Each endpoint's secrets are decrypted once per batch, not once per delivery.
 */
async function loadEndpoints(db: Knex, box: SecretBox, ids: string[]): Promise<Map<string, () => EndpointTarget>> {
  const rows: EndpointRow[] = await db('webhook_endpoints')
    .whereIn('id', [...new Set(ids)])
    // The database clock decides the 24 h of double signatures, as it stamped their start.
    .select('*', db.raw(`CASE WHEN previous_signing_secret_expires_at > now() THEN previous_signing_secret_ciphertext END AS previous_signing_secret`));
  return new Map(rows.map((row) => [row.id, once(() => endpointTarget(box, row))]));
}

/** `f`, called at most once: its result (or error) is kept for the batch's other deliveries. */
function once<T>(f: () => T): () => T {
  let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
  return () => {
    if (!outcome) {
      try {
        outcome = { ok: true, value: f() };
      } catch (error) {
        outcome = { ok: false, error };
      }
    }
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  };
}

/** The endpoint as the dispatcher needs it, its secrets decrypted (throws `SecretDecryptionError`). */
function endpointTarget(box: SecretBox, row: EndpointRow): EndpointTarget {
  return {
    id: row.id,
    url: row.url,
    version: row.version,
    active: row.enabled && row.deleted_at === null,
    signingSecrets: [row.signing_secret_ciphertext, row.previous_signing_secret].flatMap((sealed) => (sealed ? [box.open(sealed)] : [])),
    signatureScheme: row.signature_scheme,
    credentials:
      row.oauth2_token_url && row.oauth2_client_id && row.oauth2_client_secret_ciphertext
        ? {
            endpointId: row.id,
            version: row.credentials_version,
            tokenUrl: row.oauth2_token_url,
            clientId: row.oauth2_client_id,
            clientSecret: box.open(row.oauth2_client_secret_ciphertext),
          }
        : undefined,
  };
}

/** Events by id. */
async function loadEvents(db: Knex, ids: string[]): Promise<Map<string, StoredEvent>> {
  const rows: StoredEvent[] = await db('events')
    .whereIn('id', [...new Set(ids)])
    .select('id', 'type', 'created_at', 'data', 'trace_parent');
  return new Map(rows.map((r) => [r.id, r]));
}
