/**
 * `configurations.portal` (docs/api.md sections 18 and 19): what the
 * customer's portal asks and offers: how a customer gets in (`verify_with`, `link_ttl_days`,
 * `enabled`; libs/domain's portal applies them) and the income and expenditure fields
 * (`PORTAL_CIRCUMSTANCE_FIELDS`), in one object.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../kernel/schemas.js';
import { DEFAULT_DISPOSABLE_INCOME_SHARE } from '../income-and-expenditure/affordability.js';

/** The income and expenditure fields of `configurations.portal`. */
export const PORTAL_CIRCUMSTANCE_FIELDS = {
  ie_required_above: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: 2 ** 53 - 1 }), Type.Null()], {
      description:
        'Balance in minor units above which the portal asks for an income and expenditure statement before a plan; null: never on the balance alone.',
    }),
  ),
  disposable_income_share: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      description: `Percent of the disposable income an offered instalment may reach (default ${DEFAULT_DISPOSABLE_INCOME_SHARE}).`,
    }),
  ),
};

/** The facts a customer may be asked to confirm before a portal page shows a debt. */
export const VERIFY_WITH = ['date_of_birth', 'postcode', 'account_number_last4'] as const;
export type VerifyWith = (typeof VERIFY_WITH)[number];

/** How a customer gets into the portal. */
export const PORTAL_ACCESS_FIELDS = {
  verify_with: Type.Optional(StringEnum(VERIFY_WITH, { description: 'Fact the customer confirms before seeing a debt (default `date_of_birth`).' })),
  link_ttl_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, description: 'Days a portal link stays valid (default 30).' })),
  enabled: Type.Optional(Type.Boolean({ description: 'Whether communications carry portal links (default true).' })),
};

/** `configurations.portal`: every field optional; an unknown one is 400 naming it. */
export const PortalSettings = Type.Object(
  { ...PORTAL_ACCESS_FIELDS, ...PORTAL_CIRCUMSTANCE_FIELDS },
  { additionalProperties: false, description: "The customer's portal (docs/api.md sections 18 and 19)." },
);
export type PortalSettings = Static<typeof PortalSettings>;

/** The share of disposable income an organisation's offers may take, percent (default 100). */
export function disposableIncomeShare(portal: PortalSettings | undefined): number {
  return portal?.disposable_income_share ?? DEFAULT_DISPOSABLE_INCOME_SHARE;
}
