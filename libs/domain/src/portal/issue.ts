/**
 * Portal links a tenant makes for its own letters or calls (`POST /customers/{id}/portal_links`,
 * docs/api.md section 18): bound to the tenant (so to its mode) and the customer, optionally to one
 * of the customer's debts; the address, with its token, is in the answer only, once. Also the
 * debt's `portal_url` (`GET /debts/{id}`, docs/api.md section 5): its page, with no token.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { customersResource } from '../customers/resource.js';
import { debtsResource } from '../debts/resource.js';
import { organisationsResource } from '../organisations/resource.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { idSchema } from '../kernel/schemas.js';
import { PORTAL_LINK_ID_PREFIX, createPortalLink, debtPageUrl, portalUrl } from './links.js';
import { PORTAL_DEFAULTS, portalSettings } from './settings.js';

/** Longest lifetime a tenant may give a link, days. */
export const MAX_LINK_DAYS = 90;

/** `POST /customers/{id}/portal_links` body. */
export const PortalLinkCreate = Type.Object(
  {
    debt: Type.Optional(idSchema('deb', "One of the customer's debts the link opens on (yours, theirs).")),
    expires_in_days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_LINK_DAYS,
        description: `Days the link works (1 to ${MAX_LINK_DAYS}); default the organisation's \`configurations.portal.link_ttl_days\` (${PORTAL_DEFAULTS.link_ttl_days}).`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type PortalLinkCreate = Static<typeof PortalLinkCreate>;

/** The `portal_link` object: its `url` (with the token) appears in this answer only. */
export const PortalLink = Type.Object({
  id: Type.String({ pattern: `^${PORTAL_LINK_ID_PREFIX}_` }),
  object: Type.Literal('portal_link'),
  customer: Type.String(),
  debt: Type.Union([Type.String(), Type.Null()]),
  url: Type.String({ format: 'uri', description: 'The address to give the customer, `<PORTAL_BASE_URL>/l/<token>`: shown once, never stored.' }),
  expires_at: Type.String({ format: 'date-time' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type PortalLink = Static<typeof PortalLink>;

/**
 * Makes a link to the portal for customer `customerId` of `tenantId`.
 * @param baseUrl the portal's public address (`PORTAL_BASE_URL`)
 * @throws ApiError 404 `resource_missing` for another tenant's (or no) customer, or a debt that is
 *   not this customer's (`param: debt`); 409 `invalid_state_transition` when the debt's
 *   organisation turned the portal off (`configurations.portal.enabled`)
 */
export async function issuePortalLink(db: Knex, tenantId: string, customerId: string, input: PortalLinkCreate, baseUrl: string): Promise<PortalLink> {
  await findOwned(db, customersResource, tenantId, customerId);
  let ttlDays = input.expires_in_days;
  if (input.debt) {
    const debt = await tenantRows(db, debtsResource, tenantId)
      .where({ 'debts.id': input.debt, 'debts.customer_id': customerId })
      .first<{ organisation_id: string } | undefined>('debts.organisation_id');
    if (!debt) throw new ApiError('resource_missing', `No such debt of customer '${customerId}': '${input.debt}'`, { param: 'debt' });
    const organisation = await findOwned<OrganisationRow>(db, organisationsResource, tenantId, debt.organisation_id);
    const settings = portalSettings(organisation.configurations);
    if (!settings.enabled)
      throw new ApiError('invalid_state_transition', "The debt's organisation has the portal turned off (configurations.portal.enabled).", { param: 'debt' });
    ttlDays ??= settings.link_ttl_days;
  }
  const { row, token } = await createPortalLink(db, { tenantId, customerId, debtId: input.debt ?? null, ttlDays: ttlDays ?? PORTAL_DEFAULTS.link_ttl_days });
  return {
    id: row.id,
    object: 'portal_link',
    customer: customerId,
    debt: row.debt_id,
    url: portalUrl(baseUrl, token),
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
  };
}

/**
 * `portal_url` of a debt (docs/api.md sections 5 and 18): the address of its own page in the
 * portal, `<PORTAL_BASE_URL>/debts/<deb_id>`, which asks a customer without a session to open the
 * link of their message and returns them there once verified; null when the debt's organisation
 * has `configurations.portal.enabled: false`. It holds no token, so the tenant may print it.
 * @param debt the tenant's debt (its id and organisation)
 * @param baseUrl the portal's public address (`PORTAL_BASE_URL`)
 */
export async function debtPortalUrl(db: Knex, tenantId: string, debt: { id: string; organisation_id: string }, baseUrl: string): Promise<string | null> {
  const organisation = await findOwned<OrganisationRow>(db, organisationsResource, tenantId, debt.organisation_id);
  return portalSettings(organisation.configurations).enabled ? debtPageUrl(baseUrl, debt.id) : null;
}
