/**
 * The ISO 3166-1 alpha-2 country codes the platform accepts, in one place for the API's addresses
 * (docs/api.md section 10) and the imports' `country` column (section 16): the officially assigned
 * codes as the i18n-iso-countries package lists them (kept in step with the ISO 3166 Maintenance
 * Agency), which adds only `XK` (Kosovo, user-assigned, used by the EU and banks). Reserved,
 * withdrawn and private-use codes (`EU`, `ZZ`, `QO`, `UK`) are refused.
 */
import isoCountries from 'i18n-iso-countries';

let assigned: ReadonlySet<string> | undefined;

/** True when `code` (upper case, two letters) is an accepted ISO 3166-1 alpha-2 code. */
export function isCountryCode(code: string): boolean {
  assigned ??= new Set(Object.keys(isoCountries.getAlpha2Codes()));
  return assigned.has(code);
}
