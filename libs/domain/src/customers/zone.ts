/**
 * A customer's time zone (docs/api.md sections 12 and 15), from the region of its
 * `preferred_locale` (`en-GB` → Europe/London), Europe/London when it names none or one not listed.
 * Used where a date the client sends means "the start of that day where the customer lives", and by
 * the contact window of section 12 (the engine's hours are the customer's).
 */

/** Region (ISO 3166-1 alpha-2) → the IANA zone of its capital (regions with one zone, or the main one). */
const ZONES: Readonly<Record<string, string>> = {
  GB: 'Europe/London',
  IE: 'Europe/Dublin',
  FR: 'Europe/Paris',
  DE: 'Europe/Berlin',
  ES: 'Europe/Madrid',
  IT: 'Europe/Rome',
  NL: 'Europe/Amsterdam',
  BE: 'Europe/Brussels',
  PT: 'Europe/Lisbon',
  PL: 'Europe/Warsaw',
  SE: 'Europe/Stockholm',
  US: 'America/New_York',
  CA: 'America/Toronto',
  AU: 'Australia/Sydney',
  NZ: 'Pacific/Auckland',
  IN: 'Asia/Kolkata',
  JP: 'Asia/Tokyo',
};

/** The zone used when a customer's locale names no known region. */
export const DEFAULT_TIME_ZONE = 'Europe/London';

/** The IANA time zone of a customer with `preferredLocale` (a BCP 47 tag such as `en-GB`, or null). */
export function customerTimeZone(preferredLocale: string | null | undefined): string {
  const region = preferredLocale?.split('-')[1];
  return (region && ZONES[region]) || DEFAULT_TIME_ZONE;
}
