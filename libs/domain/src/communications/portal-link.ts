/**
 * The customer portal's link in a communication (docs/api.md sections 13 and 18): each message
 * the engine makes carries its own link (`{{ payment_link }}`), bound to the customer, the debt and
 * the communication. Its token is derived from the link's id (`linkToken`), so the message is sent
 * with the token while its stored body holds `TOKEN_MARKER` instead, and a re-send derives the
 * token again (`restoreLinkToken`).
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { tenantLivemode } from '../kernel/livemode.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import type { CommunicationRow } from './schemas.js';
import { PORTAL_LINK_ID_PREFIX, TOKEN_MARKER, hashToken, linkToken, portalUrl, restoreToken } from '../portal/links.js';
import { portalSettings } from '../portal/settings.js';

/** A link decided for a message before its communication exists: its id, token, address and lifetime (days). */
export interface PlannedLink {
  id: string;
  token: string;
  url: string;
  ttlDays: number;
}

/** A new link for a message of `organisation`, under the portal's base address and current token key (the first of `keys`). */
export function planLink(portal: { baseUrl: string; keys: Buffer[] }, organisation: Pick<OrganisationRow, 'configurations'>): PlannedLink {
  const id = newId(PORTAL_LINK_ID_PREFIX);
  const token = linkToken(portal.keys[0]!, id);
  return { id, token, url: portalUrl(portal.baseUrl, token), ttlDays: portalSettings(organisation.configurations).link_ttl_days };
}

/** Stores the links of the communications just made (one statement; only token hashes are stored); entries without both are skipped. */
export async function insertLinks(
  trx: Knex.Transaction,
  made: ReadonlyArray<{ communication: CommunicationRow | undefined; link: PlannedLink | undefined }>,
): Promise<void> {
  const rows = [];
  for (const { communication: c, link } of made) {
    if (!c || !link) continue;
    rows.push({
      id: link.id,
      tenant_id: c.tenant_id,
      mode: (await tenantLivemode(trx, c.tenant_id)) ? 'live' : 'test',
      customer_id: c.customer_id,
      debt_id: c.debt_id,
      communication_id: c.id,
      token_hash: hashToken(link.token),
      expires_at: trx.raw(`now() + make_interval(days => ?)`, [link.ttlDays]),
    });
  }
  if (rows.length) await trx('portal_links').insert(rows);
}

/**
 * `text` of stored communication `communicationId` with its link's token put back for a re-send;
 * unchanged when it carries no `TOKEN_MARKER`. The token is derived with whichever of `keys`
 * (current first) the link's stored hash was made with, so a key rotation between the first send
 * and a re-send keeps the link working. A marker whose link is gone (revoked or erased rows), or
 * whose key is no longer configured, is left as it is: the message then carries no usable link
 * rather than another one.
 */
export async function restoreLinkToken(trx: Knex | Knex.Transaction, keys: Buffer[], tenantId: string, communicationId: string, text: string): Promise<string> {
  if (!text.includes(TOKEN_MARKER)) return text;
  const link = await trx('portal_links')
    .where({ tenant_id: tenantId, communication_id: communicationId })
    .first<{ id: string; token_hash: Buffer } | undefined>('id', 'token_hash');
  const key = link && keys.find((k) => hashToken(linkToken(k, link.id)).equals(link.token_hash));
  return link && key ? restoreToken(text, key, link.id) : text;
}
