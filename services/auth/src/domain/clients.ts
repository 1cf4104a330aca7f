/**
 * OAuth 2.0 clients (RFC 6749 section 2): confidential machine clients of a tenant, using the
 * client_credentials grant. The secret is shown once at creation or rotation and stored only as
 * AES-256-GCM ciphertext (libs/secrets), because oidc-provider compares the presented secret itself.
 */
import type { Knex } from '@dms/db';
import { randomBase62 } from '@dms/ids';
import { randomSecret, type SecretBox } from '@dms/secrets';
import { isOperatorScope, isScope, OPERATOR_SCOPES, parseScope, SCOPES } from '@dms/scopes';
import { testTenantOf } from '@dms/domain/tenants';

/** The CLI's answer to `clients create` and `clients rotate-secret` (docs/api.md section 2). */
export interface IssuedClient {
  client_id: string;
  client_secret: string;
  audience: string;
  token_url: string;
  /** The client's tenant; null for an operator client (docs/api.md section 12). */
  tenant_id: string | null;
  scope: string;
  /** `operator` for an operator client; absent for a tenant's. */
  kind?: 'operator';
  /** A tenant client's mode: false for a test client (docs/api.md section 15); absent for an operator's. */
  livemode?: boolean;
}

/** A tenant's client, or one of the platform's operators (docs/api.md section 12). */
export type ClientKind = 'tenant' | 'operator';

/** A client as oidc-provider's adapter needs it (secret decrypted). */
export interface StoredClient {
  client_id: string;
  client_secret: string;
  tenant_id: string | null;
  scope: string;
  kind: ClientKind;
  /** False for a client of a test-mode tenant (docs/api.md section 15); true otherwise. */
  livemode: boolean;
}

interface ClientRow {
  client_id: string;
  tenant_id: string | null;
  kind: ClientKind;
  name: string;
  secret_ciphertext: string;
  scope: string;
  revoked_at: Date | null;
  updated_at: Date | Knex.Raw;
}

/**
 * LISTEN/NOTIFY channel announcing a change of one client (payload: its client_id). Every write to
 * `oauth_clients` notifies in its own transaction, so the issuers' client caches drop the entry as
 * the change commits (PostgreSQL delivers a notification only on commit).
 */
export const OAUTH_CLIENTS_CHANNEL = 'oauth_clients_changed';

/** Queues the change notification of `clientId` in the transaction `trx` (sent when it commits). */
async function notifyClientChanged(trx: Knex.Transaction, clientId: string): Promise<void> {
  await trx.raw('SELECT pg_notify(?, ?)', [OAUTH_CLIENTS_CHANNEL, clientId]);
}

/** Raised for operator mistakes (unknown tenant, unknown scope, unknown client). */
export class ClientAdminError extends Error {}

/** Where tokens are requested and what audience they are for, printed with new credentials. */
export interface IssuerInfo {
  issuer: string;
  audience: string;
}

function tokenUrl(issuer: string): string {
  return new URL('/oauth/token', issuer).href;
}

/**
 * Validates a space-separated scope list against the scopes a client of `kind` may hold: a tenant
 * client never an operator scope, an operator client only those.
 * @returns the normalised scope string (all of the kind's scopes when `scope` is undefined)
 * @throws ClientAdminError naming the first unknown scope
 */
export function normaliseClientScope(scope: string | undefined, kind: ClientKind = 'tenant'): string {
  const known: readonly string[] = kind === 'operator' ? OPERATOR_SCOPES : SCOPES;
  const valid = kind === 'operator' ? isOperatorScope : isScope;
  if (scope === undefined) return known.join(' ');
  const list = parseScope(scope);
  const unknown = list.find((s) => !valid(s));
  if (unknown) throw new ClientAdminError(`unknown scope "${unknown}"; known: ${known.join(' ')}`);
  if (list.length === 0) throw new ClientAdminError('scope must name at least one scope');
  return list.join(' ');
}

/** The tenant a new tenant client belongs to: `tenantId` itself, or for `test` its test-mode pair. */
async function clientTenant(db: Knex, tenantId: string, test: boolean): Promise<{ id: string; livemode: boolean }> {
  if (test) {
    try {
      const pair = await testTenantOf(db, tenantId);
      return { id: pair.id, livemode: false };
    } catch (err) {
      throw new ClientAdminError((err as Error).message);
    }
  }
  const tenant = await db<{ id: string; livemode: boolean }>('tenants').where({ id: tenantId }).first('id', 'livemode');
  if (!tenant) throw new ClientAdminError(`no tenant ${tenantId}`);
  return tenant;
}

/**
 * Creates a client with a fresh secret: a tenant's (`tenantId`), or an operator's (`operator`, no
 * tenant: its requests name the tenant they act for, docs/api.md section 12). A `test` client
 * belongs to the test-mode tenant paired with `tenantId` (created on first use, docs/api.md
 * section 15): its tokens carry `livemode: false` and reach only test data.
 * @param opts.scope space-separated allowed scopes (default: all of the kind's)
 * @throws ClientAdminError when the tenant does not exist, a scope is unknown or not the kind's,
 *   neither or both of `tenantId` and `operator` are given, or `test` with `operator`
 */
export async function createClient(
  db: Knex,
  box: SecretBox,
  issuer: IssuerInfo,
  opts: { tenantId?: string; operator?: boolean; test?: boolean; name: string; scope?: string },
): Promise<IssuedClient> {
  const kind: ClientKind = opts.operator ? 'operator' : 'tenant';
  if ((kind === 'operator') === (opts.tenantId !== undefined)) throw new ClientAdminError('give --tenant for a tenant client, or --operator, not both');
  if (opts.operator && opts.test) throw new ClientAdminError("--test makes a client of a tenant's test mode; an operator client names its tenant per request");
  const scope = normaliseClientScope(opts.scope, kind);
  const tenant = opts.tenantId === undefined ? undefined : await clientTenant(db, opts.tenantId, opts.test === true);
  const clientId = `cli_${randomBase62(24)}`;
  const secret = randomSecret('cs_');
  const tenantId = tenant?.id ?? null;
  await db.transaction(async (trx) => {
    await trx<ClientRow>('oauth_clients').insert({
      client_id: clientId,
      tenant_id: tenantId,
      kind,
      name: opts.name,
      secret_ciphertext: box.seal(secret),
      scope,
    });
    await notifyClientChanged(trx, clientId);
  });
  const issued = { client_id: clientId, client_secret: secret, audience: issuer.audience, token_url: tokenUrl(issuer.issuer), tenant_id: tenantId, scope };
  return tenant ? { ...issued, livemode: tenant.livemode } : { ...issued, kind: 'operator' };
}

/**
 * Replaces a client's secret; the old secret stops working as soon as the issuers hear of it
 * (their caches drop the client on the commit's NOTIFY, within milliseconds).
 * @throws ClientAdminError when the client does not exist or is revoked
 */
export async function rotateClientSecret(db: Knex, box: SecretBox, issuer: IssuerInfo, clientId: string): Promise<IssuedClient> {
  const secret = randomSecret('cs_');
  const row = await db.transaction(async (trx) => {
    const [updated] = await trx<ClientRow>('oauth_clients')
      .where({ client_id: clientId })
      .whereNull('revoked_at')
      .update({ secret_ciphertext: box.seal(secret), updated_at: trx.fn.now() })
      .returning('*');
    if (updated) await notifyClientChanged(trx, clientId);
    return updated;
  });
  if (!row) throw new ClientAdminError(`no active client ${clientId}`);
  return {
    client_id: row.client_id,
    client_secret: secret,
    audience: issuer.audience,
    token_url: tokenUrl(issuer.issuer),
    tenant_id: row.tenant_id,
    scope: row.scope,
    ...(row.kind === 'operator' ? { kind: row.kind } : {}),
  };
}

/**
 * Revokes a client: it can no longer obtain tokens. Tokens already issued stay valid until they
 * expire (at most the access-token lifetime), as with any self-contained JWT. Like every client
 * change it notifies `OAUTH_CLIENTS_CHANNEL` in the same transaction.
 * @throws ClientAdminError when the client does not exist
 */
export async function revokeClient(db: Knex, clientId: string): Promise<{ client_id: string; revoked_at: string }> {
  const row = await db.transaction(async (trx) => {
    const [updated] = await trx<ClientRow>('oauth_clients')
      .where({ client_id: clientId })
      .update({ revoked_at: trx.raw('coalesce(revoked_at, now())'), updated_at: trx.fn.now() })
      .returning(['client_id', 'revoked_at']);
    if (updated) await notifyClientChanged(trx, clientId);
    return updated;
  });
  if (!row) throw new ClientAdminError(`no client ${clientId}`);
  return { client_id: row.client_id, revoked_at: (row.revoked_at as Date).toISOString() };
}

/** Loads an active client with its secret decrypted, or undefined (unknown or revoked). */
export async function findActiveClient(db: Knex, box: SecretBox, clientId: string): Promise<StoredClient | undefined> {
  // PostgreSQL text cannot hold U+0000 (`client_id=%00`): no client has such an id, and the query
  // would fail (a 500 server_error) instead of the 401 invalid_client any unknown client gets.
  if (clientId.includes('\u0000')) return undefined;
  const row = await db<ClientRow & { livemode: boolean | null }>('oauth_clients')
    .leftJoin('tenants', 'tenants.id', 'oauth_clients.tenant_id')
    .where({ client_id: clientId })
    .whereNull('revoked_at')
    .first<(ClientRow & { livemode: boolean | null }) | undefined>('oauth_clients.*', 'tenants.livemode');
  if (!row) return undefined;
  return {
    client_id: row.client_id,
    client_secret: box.open(row.secret_ciphertext),
    tenant_id: row.tenant_id,
    scope: row.scope,
    kind: row.kind,
    livemode: row.livemode !== false,
  };
}
