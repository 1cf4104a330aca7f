/**
 * `configurations.portal` (CONTRACT section 18, docs/api.md section 18): what the customer's
 * portal asks and offers. The circumstance fields are declared apart (`PORTAL_CIRCUMSTANCE_FIELDS`)
 * so the portal's own fields join them in one object.
 */
import { Type, type Static } from '@sinclair/typebox';
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

/** `configurations.portal`: every field optional; an unknown one is 400 naming it. */
export const PortalSettings = Type.Object(PORTAL_CIRCUMSTANCE_FIELDS, {
  additionalProperties: false,
  description: "The customer's portal (docs/api.md section 18).",
});
export type PortalSettings = Static<typeof PortalSettings>;

/** The share of disposable income an organisation's offers may take, percent (default 100). */
export function disposableIncomeShare(portal: PortalSettings | undefined): number {
  return portal?.disposable_income_share ?? DEFAULT_DISPOSABLE_INCOME_SHARE;
}
