/**
 * The portal's settings in force for an organisation (docs/api.md section
 * 17): `configurations.portal` (its schema: organisations/portal-settings.ts) over the defaults.
 */
import { VERIFY_WITH, type PortalSettings, type VerifyWith } from '../organisations/portal-settings.js';

export { VERIFY_WITH, type PortalSettings, type VerifyWith };

/** The access fields of `configurations.portal` and their defaults. */
export type PortalAccess = Required<Pick<PortalSettings, 'verify_with' | 'link_ttl_days' | 'enabled'>>;

/** Defaults of the access fields of `configurations.portal`. */
export const PORTAL_DEFAULTS: PortalAccess = { verify_with: 'date_of_birth', link_ttl_days: 30, enabled: true };

/** The access settings in force: the given ones over the defaults. */
export function portalSettings(configurations: { portal?: PortalSettings } | null | undefined): PortalAccess {
  const given = configurations?.portal ?? {};
  return {
    verify_with: given.verify_with ?? PORTAL_DEFAULTS.verify_with,
    link_ttl_days: given.link_ttl_days ?? PORTAL_DEFAULTS.link_ttl_days,
    enabled: given.enabled ?? PORTAL_DEFAULTS.enabled,
  };
}
