/**
 * Portal links (docs/api.md section 18): a link is
 * `<PORTAL_BASE_URL>/l/<token>`, the token 32 random bytes in base64url; only its SHA-256 hash is
 * stored (`portal_links.token_hash`). A link is bound to its tenant (and so to test or live mode)
 * and customer, expires after `configurations.portal.link_ttl_days` and can be revoked.
 *
 * A communication's link has a token derived from the link's id with a key only the services hold
 * (`linkToken`): the stored body of the communication carries `TOKEN_MARKER` in its place
 * (`redactToken`), and a re-send derives the token again (`restoreToken`); so neither the
 * database nor the API's communication bodies ever hold a usable token.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { tenantLivemode } from '../kernel/livemode.js';

/** Prefix of link ids (`pln_…`). */
export const PORTAL_LINK_ID_PREFIX = 'pln';

/** A stored link (never holds the token). */
export interface PortalLinkRow {
  id: string;
  tenant_id: string;
  mode: 'test' | 'live';
  customer_id: string;
  debt_id: string | null;
  communication_id: string | null;
  expires_at: Date;
  revoked_at: Date | null;
  failed_attempts: number;
  locked_until: Date | null;
  created_at: Date;
}

/** SHA-256 of a token, the only form it is stored or looked up in. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A new token: 32 random bytes, base64url (43 characters). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The address of a link: `<base>/l/<token>` (base without a trailing slash). */
export function portalUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/l/${token}`;
}

/** Pattern of the portal's own page of one debt, `/debts/<deb_id>` (the only return address a session keeps). */
export const DEBT_PAGE_PATH = /^\/debts\/deb_[A-Za-z0-9]+$/;

/** The path of the portal's page of debt `debtId`: `/debts/<deb_id>`. */
export function debtPagePath(debtId: string): string {
  return `/debts/${encodeURIComponent(debtId)}`;
}

/** The absolute address of the portal's page of debt `debtId`: `<base>/debts/<deb_id>` (base without a trailing slash). */
export function debtPageUrl(baseUrl: string, debtId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${debtPagePath(debtId)}`;
}

/** What stands in for a link's token in a stored communication body (docs/api.md section 18). */
export const TOKEN_MARKER = '[link-token]';

/**
 * The keys communication links' tokens are derived with (never a secrets key itself), one per key
 * of `secretsKey` (`SECRETS_KEY`: comma-separated, the current key first), in the same order: a new
 * link uses the first; a re-send finds the one its stored hash was made with, so a queued message
 * keeps its link across a key rotation (deploy/README.md, "Rotating keys").
 */
export function linkTokenKeys(secretsKey: string): Buffer[] {
  const keys = secretsKey
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  return keys.map((k) => createHmac('sha256', k).update('dms portal link token v1').digest());
}

/** The token of link `linkId` under `key` (HMAC-SHA256, base64url, 43 characters like a random one). */
export function linkToken(key: Buffer, linkId: string): string {
  return createHmac('sha256', key).update(linkId, 'utf8').digest('base64url');
}

/** `text` with every occurrence of `token` replaced by `TOKEN_MARKER` (null stays null). */
export function redactToken<T extends string | null>(text: T, token: string): T {
  return (text === null ? null : text.replaceAll(token, TOKEN_MARKER)) as T;
}

/** `text` with `TOKEN_MARKER` replaced by the token of link `linkId` again. */
export function restoreToken(text: string, key: Buffer, linkId: string): string {
  return text.includes(TOKEN_MARKER) ? text.replaceAll(TOKEN_MARKER, linkToken(key, linkId)) : text;
}

/** What `createPortalLink` needs: the customer (of `tenantId`), and optionally a debt or communication. */
export interface NewPortalLink {
  tenantId: string;
  customerId: string;
  debtId?: string | null;
  communicationId?: string | null;
  /** Lifetime in days (the organisation's `configurations.portal.link_ttl_days`). */
  ttlDays: number;
  /** Given: the link's id, its token derived with this key (`linkToken`); otherwise both random. */
  derive?: { id: string; key: Buffer };
}

/**
 * Stores a new link in `trx` and returns it with its token (shown once; only the hash is kept).
 * @returns the row and `token`
 */
export async function createPortalLink(trx: Knex | Knex.Transaction, link: NewPortalLink): Promise<{ row: PortalLinkRow; token: string }> {
  const id = link.derive?.id ?? newId(PORTAL_LINK_ID_PREFIX);
  const token = link.derive ? linkToken(link.derive.key, id) : newToken();
  const live = await tenantLivemode(trx, link.tenantId);
  const [row] = await trx('portal_links')
    .insert({
      id,
      tenant_id: link.tenantId,
      mode: live ? 'live' : 'test',
      customer_id: link.customerId,
      debt_id: link.debtId ?? null,
      communication_id: link.communicationId ?? null,
      token_hash: hashToken(token),
      expires_at: trx.raw(`now() + make_interval(days => ?)`, [link.ttlDays]),
    })
    .returning('*');
  return { row: row as PortalLinkRow, token };
}

/** The state of a link found by its token: usable, or why not. */
export type LinkLookup = { state: 'ok'; link: PortalLinkRow } | { state: 'locked'; link: PortalLinkRow } | { state: 'gone' } | { state: 'unknown' };

/** Finds the link of `token` (by hash) and says whether it may be used now. */
export async function findPortalLink(db: Knex | Knex.Transaction, token: string): Promise<LinkLookup> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return { state: 'unknown' };
  const row = (await db('portal_links')
    .where({ token_hash: hashToken(token) })
    .first()) as PortalLinkRow | undefined;
  if (!row) return { state: 'unknown' };
  return linkState(row);
}

/** The state of a stored link at this moment. */
export function linkState(row: PortalLinkRow, now = new Date()): LinkLookup {
  if (row.revoked_at || row.expires_at <= now) return { state: 'gone' };
  if (row.locked_until && row.locked_until > now) return { state: 'locked', link: row };
  return { state: 'ok', link: row };
}

/** Revokes the links of a communication (none left usable); returns how many were revoked. */
export async function revokeCommunicationLinks(db: Knex | Knex.Transaction, tenantId: string, communicationId: string): Promise<number> {
  return db('portal_links').where({ tenant_id: tenantId, communication_id: communicationId }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
}
